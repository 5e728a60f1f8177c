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
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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

// proc is a running worker process.
type proc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies *bufio.Scanner
	stderr  *tailBuffer
	done    chan struct{} // closed when the process has exited
}

func (h *harness) start(dir string) (*proc, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := h.workerCmd(dir)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	for k, v := range map[string]string{"TORCHTPU_MAX_TENSOR_BYTES": "268435456", "TORCHTPU_MAX_WEIGHT_BYTES": "1073741824", "GOMEMLIMIT": "3GiB"} {
		if os.Getenv(k) == "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.ExtraFiles = []*os.File{pw}
	p := &proc{cmd: cmd, stderr: &tailBuffer{max: 16 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.Stdout = io.Discard
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pw.Close()
	p.replies = bufio.NewScanner(pr)
	p.replies.Buffer(make([]byte, 1<<20), 1<<20)
	go func() {
		cmd.Wait()
		pr.Close()
		close(p.done)
	}()
	return p, nil
}

// serve runs cases on one worker process, restarting it when it dies or
// hangs.
func (h *harness) serve(w int, ids <-chan int) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("mutate-w%d-", w))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	var p *proc
	for id := range ids {
		if p == nil {
			if p, err = h.start(dir); err != nil {
				fmt.Fprintln(os.Stderr, "mutate: start worker:", err)
				os.Exit(1)
			}
		}
		c := h.newCase(id, dir)
		for name, data := range c.files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "mutate:", err)
				os.Exit(1)
			}
		}
		rep, dead := h.ask(p, c)
		if dead {
			p = nil
		}
		h.record(c, rep)
	}
	if p != nil { // stdin closed, a worker ends; one that does not is killed
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// ask sends a case and waits for its reply; dead reports that the worker
// died or was killed (rep then says why).
func (h *harness) ask(p *proc, c *tcase) (rep reply, dead bool) {
	line, _ := json.Marshal(c.req)
	got := make(chan *reply, 1)
	go func() {
		if p.replies.Scan() {
			var r reply
			if json.Unmarshal(p.replies.Bytes(), &r) == nil {
				got <- &r
				return
			}
		}
		got <- nil
	}()
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		<-p.done
		return h.death(p, c), true
	}
	select {
	case r := <-got:
		if r == nil || r.ID != c.id {
			<-p.done
			return h.death(p, c), true
		}
		return *r, false
	case <-time.After(h.hang):
		p.cmd.Process.Kill()
		<-p.done
		<-got
		return reply{Outcome: "hang", Stage: "worker", Msg: fmt.Sprintf("no answer in %v", h.hang)}, true
	}
}

// death classifies a worker that died on a case from its stderr.
func (h *harness) death(p *proc, c *tcase) reply {
	msg := p.stderr.String()
	outcome := "died"
	switch {
	case strings.Contains(msg, "panic: "):
		outcome = "panic"
	case strings.Contains(msg, "fatal error: "):
		outcome = "fatal"
	}
	if i := strings.Index(msg, "panic: "); i >= 0 {
		msg = msg[i:]
	} else if i := strings.Index(msg, "fatal error: "); i >= 0 {
		msg = msg[i:]
	}
	if len(msg) > 3000 {
		msg = msg[:3000]
	}
	return reply{Outcome: outcome, Stage: "worker", Msg: fmt.Sprintf("%s (exit: %v)", msg, p.cmd.ProcessState)}
}

// record counts a case; one that panicked, died or hung is kept.
func (h *harness) record(c *tcase, rep reply) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.counts[c.kind] == nil {
		h.counts[c.kind] = map[string]int{}
	}
	h.counts[c.kind][rep.Outcome]++
	if rep.Outcome == "error" {
		stage := rep.Stage
		if strings.Contains(rep.Msg, "deadline exceeded") || strings.Contains(rep.Msg, "timed out") {
			stage += " (timeout)"
		}
		h.stages[c.kind+"/"+stage]++
	}
	what := fmt.Sprintf("case %d (%s of %s: %s)", c.id, c.kind, c.base, c.what)
	h.slowest = append(h.slowest, caseTime{c.id, rep.Seconds, what})
	sort.Slice(h.slowest, func(i, j int) bool { return h.slowest[i].seconds > h.slowest[j].seconds })
	if len(h.slowest) > 5 {
		h.slowest = h.slowest[:5]
	}
	if h.verbose {
		fmt.Printf("%s: %s %s %.3fs %s\n", what, rep.Outcome, rep.Stage, rep.Seconds, firstLine(rep.Msg))
	}
	switch rep.Outcome {
	case "ok", "error":
		return
	}
	dir := filepath.Join(h.keep, fmt.Sprintf("case-%d", c.id))
	os.MkdirAll(dir, 0o755)
	for name, data := range c.files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	note := fmt.Sprintf("%s\n%s: %s\n\nreproduce: go run ./tools/mutate -seed %d -first %d -n 1 -kinds %s -v\n",
		what, rep.Outcome, rep.Msg, h.seed, c.id, strings.Join(h.kinds, ","))
	os.WriteFile(filepath.Join(dir, "README"), []byte(note), 0o644)
	h.bad = append(h.bad, fmt.Sprintf("%s: %s: %s [kept in %s]", what, rep.Outcome, firstLine(rep.Msg), dir))
	fmt.Printf("!! %s: %s: %s\n", what, rep.Outcome, firstLine(rep.Msg))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// report prints the counts and returns the exit status: 1 when a case
// panicked, died or hung.
func (h *harness) report(n int, wall time.Duration) int {
	fmt.Printf("mutate: %d cases (seed %d) in %.1fs, %.1f cases/s\n", n, h.seed, wall.Seconds(), float64(n)/wall.Seconds())
	outcomes := []string{"ok", "error", "panic", "fatal", "died", "hang"}
	total := map[string]int{}
	for _, k := range h.kinds {
		var parts []string
		for _, o := range outcomes {
			parts = append(parts, fmt.Sprintf("%s %d", o, h.counts[k][o]))
			total[o] += h.counts[k][o]
		}
		fmt.Printf("  %-12s %s\n", k, strings.Join(parts, ", "))
	}
	var stages []string
	for s, c := range h.stages {
		stages = append(stages, fmt.Sprintf("%s %d", s, c))
	}
	sort.Strings(stages)
	fmt.Printf("  errors by stage: %s\n", strings.Join(stages, ", "))
	for _, s := range h.slowest {
		fmt.Printf("  slow: %.2fs %s\n", s.seconds, s.what)
	}
	badN := total["panic"] + total["fatal"] + total["died"] + total["hang"]
	fmt.Printf("mutate: panics %d, fatal %d, died %d, hangs %d\n", total["panic"], total["fatal"], total["died"], total["hang"])
	for _, b := range h.bad {
		fmt.Println("  " + b)
	}
	if badN > 0 {
		return 1
	}
	return 0
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
