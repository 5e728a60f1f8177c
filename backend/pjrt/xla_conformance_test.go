//go:build cgo

package pjrt_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/backend/pjrt"
	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The whole StableHLO conformance suite on the real XLA CPU plugin
// (scripts/install-pjrt.sh xla-cpu): each test function is compiled by
// XLA with its checks turned into results, run, and checked on the host
// (native.RunFileOn). Files run in worker processes: XLA's compiler
// crashes on a few, and a crash fails that file only.
// testdata/xla_cpu_conformance_failures.txt lists the files known to
// fail, each with its kind:
//
//	[xla wrong]       XLA's results fail the suite's checks, which the
//	                  native backend passes: the suite says XLA is wrong
//	[xla unsupported] XLA refuses to compile the program
//	[xla crash]       XLA's compiler or runtime crashes the process
//	[no transfer]     a result of a sub-byte type (i2, i4) that
//	                  backend/pjrt cannot read back yet
//	[not on device]   the test uses the interpreter's own ops: it runs on
//	                  no device
//
// A function that takes arguments the file does not give is compiled,
// not run, as the native backend's harness only plans it.
//	[both fail]       the native backend fails it too
//	[native wrong]    ... never listed: XLA passes a file native fails,
//	                  reported by the test
//
// The list may only shrink: a new failure fails the test, and so does a
// listed file that passes. TORCHTPU_UPDATE_FAILURES=1 rewrites it.

const (
	confDir          = "../../../shared/conformance/stablehlo"
	xlaConfFailures  = "testdata/xla_cpu_conformance_failures.txt"
	nativeConfFailed = "../native/conformance_failures.txt"
)

// xlaCPU returns the installed XLA CPU plugin, failing under CI when
// there is none and skipping elsewhere.
func xlaCPU(t *testing.T) string {
	t.Helper()
	if !pjrt.CanLoad {
		t.Skip("no cgo")
	}
	c := pjrt.ForKind(pjrt.Search(nil), "xla-cpu")
	if c == nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no xla-cpu PJRT plugin: .ci/run installs it with scripts/install-pjrt.sh xla-cpu")
		}
		t.Skip("no xla-cpu PJRT plugin (scripts/install-pjrt.sh xla-cpu)")
	}
	return c.Path
}

func confFiles(t *testing.T) []string {
	if _, err := os.Stat(confDir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance suite missing in CI: %v", err)
		}
		t.Skipf("conformance suite not found: %v", err)
	}
	var files []string
	for _, dir := range []string{"interpret", "testdata"} {
		m, _ := filepath.Glob(filepath.Join(confDir, dir, "*.mlir"))
		if len(m) == 0 {
			t.Fatalf("no .mlir files in %s/%s", confDir, dir)
		}
		files = append(files, m...)
	}
	if only := os.Getenv("CONFORMANCE_FILES"); only != "" { // e.g. interpret/add.mlir,testdata/abs_float32.mlir
		var keep []string
		for _, f := range strings.Split(only, ",") {
			keep = append(keep, filepath.Join(confDir, f))
		}
		files = keep
	}
	return files
}

// readList reads "path<TAB>cause" lines.
func readList(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, cause, _ := strings.Cut(line, "\t")
		out[strings.TrimSpace(p)] = strings.TrimSpace(cause)
	}
	return out
}

// xlaCPUDependent lists the failures of xla_cpu_conformance_failures.txt
// that XLA's plugin passes on some CPUs: its float32 kernels take other
// paths on other vector units, and the file's expected values sit at the
// edge of the check's tolerance. Such a file passing is logged, not an
// error; failing, it must still be listed.
var xlaCPUDependent = map[string]string{
	"testdata/triangular_solve_float32_2_8_8_float32_2_10_8.mlir": "12-13 ULP off on an Ice Lake (AVX-512) core, within 3 ULP on a Zen 2 (AVX2) one",
}

func TestXLACPUConformance(t *testing.T) {
	if pjrttest.IsWorker() {
		t.Skip("worker process")
	}
	xlaCPU(t)
	files := confFiles(t)
	start := time.Now()
	res := pjrttest.RunIsolated(t, "TestXLACPUConformanceWorker", files, 2, 3*time.Minute)
	known := readList(t, xlaConfFailures)
	native := readList(t, nativeConfFailed)
	kinds := map[string]int{}
	var lines []string
	pass := 0
	for _, path := range files {
		rel, _ := filepath.Rel(confDir, path)
		rel = filepath.ToSlash(rel)
		msg := res[path]
		cause, listed := known[rel]
		if msg == "" {
			pass++
			if why, ok := xlaCPUDependent[rel]; listed && ok {
				t.Logf("%s passes on this CPU's xla-cpu (listed: %s)", rel, why)
			} else if listed {
				t.Errorf("%s passes on xla-cpu now: remove it from %s (was: %s)", rel, xlaConfFailures, cause)
			}
			if _, nf := native[rel]; nf {
				t.Logf("%s: [native wrong] passes on xla-cpu, fails on the native backend", rel)
			}
			continue
		}
		kind := failureKind(msg)
		if _, nf := native[rel]; nf {
			kind = "[both fail]"
		}
		kinds[kind]++
		lines = append(lines, rel+"\t"+kind+" "+oneLine(msg))
		if !listed {
			t.Errorf("%s fails on xla-cpu: %s %s", rel, kind, msg)
		}
	}
	t.Logf("xla-cpu conformance: %d of %d files pass in %v; failing by kind: %v", pass, len(files), time.Since(start).Round(time.Second), kinds)
	if os.Getenv("TORCHTPU_UPDATE_FAILURES") == "1" && os.Getenv("CONFORMANCE_FILES") == "" {
		sort.Strings(lines)
		head := "# StableHLO conformance files failing on xla-cpu (XLA's CPU PJRT plugin): path<TAB>[kind] cause.\n" +
			"# Kinds: see backend/pjrt/xla_conformance_test.go. Generated by TORCHTPU_UPDATE_FAILURES=1 go test -run TestXLACPUConformance; the list only shrinks.\n" +
			fmt.Sprintf("# %d of %d files pass; failing by kind: %v\n", pass, len(files), kinds)
		if err := os.WriteFile(xlaConfFailures, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// failureKind classifies a worker's message.
func failureKind(msg string) string {
	for _, k := range []string{"[xla wrong]", "[xla error]", "[xla unsupported]", "[no transfer]", "[not on device]"} {
		if strings.HasPrefix(msg, k) {
			return k
		}
	}
	switch {
	case strings.HasPrefix(msg, "worker died"):
		return "[xla crash]"
	case strings.Contains(msg, "compile:"):
		return "[xla unsupported]"
	case strings.Contains(msg, "check failed"):
		return "[xla wrong]"
	}
	return "[xla error]"
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, confDir+"/", "")
	s = strings.Join(strings.Fields(s), " ")
	for _, k := range []string{"[xla wrong] ", "[xla error] ", "[xla unsupported] ", "[no transfer] ", "[not on device] "} {
		s = strings.TrimPrefix(s, k)
	}
	if len(s) > 300 {
		s = s[:120] + " ... " + s[len(s)-170:]
	}
	return s
}

// TestXLACPUConformanceWorker is TestXLACPUConformance's worker process.
func TestXLACPUConformanceWorker(t *testing.T) {
	if !pjrttest.IsWorker() {
		t.Skip("the worker process of TestXLACPUConformance")
	}
	b, err := backend.Open("xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	pjrttest.ServeIsolated(func(path string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		r := native.RunFileOn(ctx, path, b, native.RunOptions{Timeout: time.Minute})
		if r.Err != nil {
			return r.Err.Error()
		}
		// Every failing function is classified; the file reports the most
		// telling kind (a wrong answer before a refused compile).
		best, bestRank, n := "", 99, 0
		for _, f := range r.Funcs {
			if f.Err == nil {
				continue
			}
			msg := f.Name + ": " + f.Err.Error()
			if strings.Contains(f.Err.Error(), "takes arguments") {
				// The file gives no arguments (a shape-polymorphic
				// program): it runs at batch 3 (padded to the bucket 4
				// where the program allows it) on sample arguments,
				// against the native backend's results.
				err := runSampled(ctx, b, path)
				if err == nil {
					continue
				}
				msg = f.Name + ": " + err.Error()
			}
			n++
			kind := failureKind(msg)
			switch {
			case strings.Contains(msg, "PJRT element type"):
				kind = "[no transfer]"
			case errors.Is(f.Err, backend.ErrNotImplemented) && kind != "[xla unsupported]":
				kind = "[not on device]"
			}
			if rank := strings.Index(kindOrder, kind); rank < bestRank {
				best, bestRank = kind+" "+msg, rank
			}
		}
		if n > 1 {
			best += fmt.Sprintf(" (and %d more failing functions)", n-1)
		}
		return best
	})
}

// kindOrder ranks the kinds of a file's failures, most telling first.
const kindOrder = "[xla wrong][xla error][xla unsupported][no transfer][not on device]"

// runSampled runs every module of the file whose @main takes arguments
// (a shape-polymorphic program: the native backend's harness only plans
// it) at batch size 3 on sample arguments, on b (bucketed to 4 where the
// program allows it, else exact) and on the native backend, and compares
// the results. Where the native backend cannot run
// the polymorphic program (a convert to a ? result), it runs the program
// refined by legalize instead.
func runSampled(ctx context.Context, b backend.Backend, path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	mods, err := stablehlo.Parse(path, src)
	if err != nil {
		return err
	}
	for mi, m := range mods {
		f := m.Func("main")
		if f == nil || f.Type == nil || len(f.Type.Inputs) == 0 {
			continue
		}
		exe, err := b.Compile(ctx, m, backend.Options{})
		if err != nil {
			return fmt.Errorf("compile: %w", err)
		}
		for _, size := range []int64{3} {
			args, err := pjrttest.SampleArgs(f.Type.Inputs, size, size)
			if err != nil {
				return err
			}
			want, nerr := nativeRun(ctx, src, mi, args)
			got, err := exe.Run(ctx, args)
			switch {
			case err != nil && nerr != nil:
				continue // both refuse the program at these shapes (the file is only parsed by the suite)
			case err != nil:
				return fmt.Errorf("batch %d: %w", size, err)
			case nerr != nil:
				continue // the native backend plans the program but cannot run it
			}
			if err := pjrttest.Compare(got, want, 1e-3, 1e-5); err != nil {
				return fmt.Errorf("[xla wrong] batch %d: against the native backend: %w", size, err)
			}
		}
	}
	return nil
}

// nativeRun runs module mi of src on the native backend; when it cannot
// run the polymorphic program, it runs the program refined for args.
func nativeRun(ctx context.Context, src []byte, mi int, args []*literal.Literal) ([]*literal.Literal, error) {
	run := func(m *stablehlo.Module) ([]*literal.Literal, error) {
		exe, err := (&native.Backend{}).Compile(ctx, m, backend.Options{})
		if err != nil {
			return nil, err
		}
		return exe.Run(ctx, args)
	}
	mods, err := stablehlo.Parse("native", src)
	if err != nil {
		return nil, err
	}
	outs, err := run(mods[mi])
	if err == nil || !strings.Contains(err.Error(), "must be a static tensor") {
		return outs, err
	}
	mods, _ = stablehlo.Parse("native", src)
	m := mods[mi]
	if err := legalize.Run(&legalize.State{Ctx: ctx, Module: m}, legalize.Options{Only: []string{"inline"}}); err != nil {
		return nil, err
	}
	shapeArgs, err := legalize.ShapeArgs(m)
	if err != nil {
		return nil, err
	}
	la := make([]legalize.Arg, len(args))
	for i, a := range args {
		la[i].Type = stablehlo.Tensor(a.DType, a.Shape...)
	}
	for _, i := range shapeArgs {
		la[i].Value = args[i]
	}
	if err := legalize.Run(&legalize.State{Ctx: ctx, Module: m, Args: la}, legalize.Options{Only: []string{"refine", "dce"}}); err != nil {
		return nil, err
	}
	return run(m)
}
