// Command opinfo runs the OpInfo sweep: the cases tools/opinfo/gen.py
// exported from PyTorch's op_db, each run on a torchtpu device in a worker
// process and compared with PyTorch's eager outputs, and writes the
// coverage table (docs/coverage.md).
//
//	go run ./tools/opinfo -cases ~/.cache/torchtpu/opinfo/cases -device cpu -out docs/coverage.md
//
// Per case the outcome is pass, not lowered (an op without a registry
// entry), wrong values (outside torch.testing's default tolerance of the
// dtype; random ops: dtype or shape), error, recovered panic, or crash (the
// worker process died or outlived -timeout). Cases PyTorch could not run
// or export are listed, not counted. Results go to a JSONL file as well;
// -failed reruns only the cases that did not pass there.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	home, _ := os.UserHomeDir()
	casesDir := flag.String("cases", filepath.Join(home, ".cache", "torchtpu", "opinfo", "cases"), "folder of the generated cases (gen.py's OUT)")
	device := flag.String("device", "cpu", "device to run on (see 'torchtpu devices')")
	out := flag.String("out", "", "write the coverage table (markdown) here, e.g. docs/coverage.md")
	results := flag.String("results", "", "per-case results, JSONL (default: CASES/results-DEVICE.jsonl)")
	jobs := flag.Int("j", 1, "worker processes")
	timeout := flag.Duration("timeout", 2*time.Minute, "per case; a case that outlives it is a crash")
	ops := flag.String("ops", "", "only these OpInfo names (comma-separated)")
	failed := flag.Bool("failed", false, "rerun only the cases that did not pass in -results, keep the others")
	check := flag.Bool("check", true, "verify every lowered module and its MLIR text round trip")
	workerMode := flag.Bool("worker", false, "internal: serve cases on stdin")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r := &Runner{Dir: *casesDir, Device: *device, Check: *check}
	if *workerMode {
		if err := serveWorker(ctx, r, *timeout); err != nil {
			fmt.Fprintln(os.Stderr, "opinfo worker:", err)
			os.Exit(1)
		}
		return
	}
	if *results == "" {
		*results = filepath.Join(*casesDir, "results-"+strings.ReplaceAll(*device, ":", "_")+".jsonl")
	}
	if err := sweep(ctx, r, sweepOptions{
		jobs: *jobs, timeout: *timeout, ops: *ops, failed: *failed,
		results: *results, out: *out,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "opinfo:", err)
		os.Exit(1)
	}
}

type sweepOptions struct {
	jobs         int
	timeout      time.Duration
	ops          string
	failed       bool
	results, out string
}

func sweep(ctx context.Context, r *Runner, o sweepOptions) error {
	cases, err := ReadIndex(r.Dir)
	if err != nil {
		return err
	}
	prev := map[string]Result{}
	if o.failed || o.ops != "" {
		if prev, err = readResults(o.results); err != nil {
			return err
		}
	}
	only := map[string]bool{}
	for _, s := range strings.Split(o.ops, ",") {
		if s = strings.TrimSpace(s); s != "" {
			only[s] = true
		}
	}
	var todo []*Case
	for _, c := range cases {
		if !c.Counted() || (len(only) > 0 && !only[c.Op]) {
			continue
		}
		if p, ok := prev[c.Name]; o.failed && ok && p.Outcome == Pass {
			continue
		}
		todo = append(todo, c)
	}
	workerArgs := []string{"-worker", "-cases", r.Dir, "-device", r.Device, "-timeout", o.timeout.String(),
		fmt.Sprintf("-check=%v", r.Check)}
	start, n := time.Now(), 0
	runAll(ctx, todo, o.jobs, workerArgs, o.timeout+30*time.Second, func(res Result) {
		prev[res.Name] = res
		n++
		if n%500 == 0 || n == len(todo) {
			fmt.Fprintf(os.Stderr, "%d/%d cases, %s\n", n, len(todo), time.Since(start).Round(time.Second))
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := writeResults(o.results, prev); err != nil {
		return err
	}
	rep := NewReport(cases, prev, r.Device)
	fmt.Print(rep.Summary())
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(rep.Markdown()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func readResults(path string) (map[string]Result, error) {
	m := map[string]Result{}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		m[r.Name] = r
	}
	return m, nil
}

func writeResults(path string, m map[string]Result) error {
	var b strings.Builder
	for _, name := range sortedKeys(m) {
		j, _ := json.Marshal(m[name])
		b.Write(j)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
