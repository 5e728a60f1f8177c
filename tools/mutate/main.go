// Command mutate is torchtpu's mutation harness: it takes the real
// archives, I/O files and StableHLO programs of ../shared (fixtures and
// the conformance suite), mutates them with seeded random edits (JSON
// numbers, strings, lists and keys of the programs and configs; pickles;
// truncated or extended weight files; zip entries; header fields; MLIR
// tokens and lines), and runs each case through the code paths of
// `torchtpu run` and `torchtpu stablehlo run`, in worker processes that
// recover nothing. It reports how many cases ran cleanly, how many ended
// with an error (the expected answer to a bad file), and how many
// panicked, died, or hung: those must be 0. Their inputs are kept under
// -keep with the command that reproduces them.
//
//	go run ./tools/mutate -n 10000            # 10,000 cases, seed 1
//	go run ./tools/mutate -n 1 -first 4711    # case 4711 alone
//
// Case i depends only on -seed and i, so a run can be repeated exactly.
// Workers run with lower tensor limits than the defaults
// (TORCHTPU_MAX_TENSOR_BYTES 256 MiB, TORCHTPU_MAX_WEIGHT_BYTES 1 GiB,
// unless set) so that mutated sizes cannot take the machine's memory.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

func main() {
	n := flag.Int("n", 1000, "number of cases")
	first := flag.Int("first", 0, "index of the first case")
	seed := flag.Int64("seed", 1, "random seed: case i depends only on the seed and i")
	jobs := flag.Int("j", 2, "worker processes")
	fixtures := flag.String("fixtures", "../shared/fixtures", "fixture folder (models, ops)")
	conformance := flag.String("conformance", "../shared/conformance/stablehlo", "StableHLO conformance folder")
	kinds := flag.String("kinds", "pt2,safetensors,mlir", "case kinds, in turn")
	caseTimeout := flag.Duration("timeout", 20*time.Second, "time limit of one case inside a worker (an error when reached)")
	hang := flag.Duration("hang", 90*time.Second, "a worker silent this long on one case is killed and the case counted as a hang")
	keep := flag.String("keep", "mutate-failures", "folder for the inputs of cases that panicked, died or hung")
	verbose := flag.Bool("v", false, "print every case")
	isWorker := flag.Bool("worker", false, "internal: run cases from stdin")
	cacheDir := flag.String("cache-dir", "", "internal: the worker's compile cache")
	flag.Parse()

	if *isWorker {
		if err := worker(*caseTimeout, *cacheDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	c, err := loadCorpus(*fixtures, *conformance)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
	h := newHarness(c, *seed, strings.Split(*kinds, ","), *keep)
	h.caseTimeout, h.hang, h.verbose = *caseTimeout, *hang, *verbose
	h.workerCmd = func(dir string) *exec.Cmd {
		return exec.Command(os.Args[0], "-worker", "-timeout", h.caseTimeout.String(), "-cache-dir", filepath.Join(dir, "cache"))
	}
	os.Exit(h.run(*first, *n, *jobs))
}

func newHarness(c *corpus, seed int64, kinds []string, keep string) *harness {
	return &harness{corpus: c, seed: seed, kinds: kinds, keep: keep, caseTimeout: 20 * time.Second, hang: 90 * time.Second,
		counts: map[string]map[string]int{}, stages: map[string]int{}}
}

// harness generates cases and hands them to workers.
type harness struct {
	corpus      *corpus
	seed        int64
	kinds       []string
	caseTimeout time.Duration
	hang        time.Duration
	keep        string
	verbose     bool
	// workerCmd makes the command of a worker process whose scratch
	// folder is dir; it reads requests on stdin and replies on fd 3.
	workerCmd func(dir string) *exec.Cmd

	mu      sync.Mutex
	counts  map[string]map[string]int // kind → outcome → cases
	stages  map[string]int            // kind/stage of the errors
	bad     []string                  // descriptions of the cases that panicked, died or hung
	slowest []caseTime
}

type caseTime struct {
	id      int
	seconds float64
	what    string
}

// tcase is a generated case: its files and how it was made.
type tcase struct {
	id    int
	kind  string
	base  string // the real file it was made from
	what  string // the mutation
	files map[string][]byte
	req   request
}

func (h *harness) run(first, n, jobs int) int {
	start := time.Now()
	ids := make(chan int)
	go func() {
		for i := first; i < first+n; i++ {
			ids <- i
		}
		close(ids)
	}()
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			h.serve(w, ids)
		}(w)
	}
	wg.Wait()
	wall := time.Since(start)
	return h.report(n, wall)
}

// newCase makes case id: its kind by turn, its base file and mutation
// from a generator seeded by (seed, id).
func (h *harness) newCase(id int, dir string) *tcase {
	r := rand.New(rand.NewSource(h.seed*1_000_003 + int64(id)))
	c := &tcase{id: id, kind: h.kinds[id%len(h.kinds)], files: map[string][]byte{}}
	switch c.kind {
	case "pt2":
		c.base = h.corpus.archive(r)
		raw := mustRead(c.base)
		data, what := mutateArchive(r, raw)
		c.what = what
		c.files["case.pt2"] = data
		c.req = request{Kind: c.kind, Program: filepath.Join(dir, "case.pt2")}
		if r.Intn(2) == 0 { // the fixture's inputs, else the archive's sample inputs
			c.req.Inputs = ioFile(c.base)
		}
	case "safetensors":
		c.base = h.corpus.archive(r)
		data, what := mutateSafetensors(r, mustRead(ioFile(c.base)))
		c.what = what
		c.files["case.safetensors"] = data
		c.req = request{Kind: c.kind, Program: c.base, Inputs: filepath.Join(dir, "case.safetensors")}
	case "mlir":
		c.base = h.corpus.mlir[r.Intn(len(h.corpus.mlir))]
		c.files["case.mlir"] = mutateMLIR(r, mustRead(c.base))
		c.what = "tokens"
		c.req = request{Kind: c.kind, Program: filepath.Join(dir, "case.mlir")}
	default:
		c.what = "unknown kind"
		c.req = request{Kind: c.kind}
	}
	c.req.ID = id
	return c
}

func mustRead(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
	return b
}
