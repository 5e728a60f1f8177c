package native

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// The conformance harness runs StableHLO test files (the interpret/ and
// testdata/ suites of the StableHLO repository) on the native backend:
// check ops in the file decide pass or fail.
//
// Which functions are tests: in a module with a @main, @main (with the
// arguments of a `--args="[...]"` RUN line when it has parameters); in a
// module without one, every function without parameters. A module whose
// @main takes arguments that no RUN line supplies (e.g. the dynamic-shape
// files of testdata/, which the reference only round-trips) is compiled
// but not run: it passes when every op of it has a kernel.

// FuncResult is the outcome of one test function.
type FuncResult struct {
	Name string // "@module::@func" or "@func"
	// CompiledOnly is set when the function needs arguments the file does
	// not give: it was planned, not run.
	CompiledOnly bool
	Err          error // nil when it passed
	Duration     time.Duration
}

// FileResult is the outcome of one file.
type FileResult struct {
	Path  string
	Err   error // parse or verification failure of the whole file
	Funcs []FuncResult
}

// Passed reports whether the file parsed and every function passed.
func (r *FileResult) Passed() bool {
	if r.Err != nil {
		return false
	}
	for _, f := range r.Funcs {
		if f.Err != nil {
			return false
		}
	}
	return true
}

// FirstError returns the file's error or its first failing function's,
// prefixed with the function name.
func (r *FileResult) FirstError() error {
	if r.Err != nil {
		return r.Err
	}
	for _, f := range r.Funcs {
		if f.Err != nil {
			return fmt.Errorf("%s: %w", f.Name, f.Err)
		}
	}
	return nil
}

// RunOptions configure RunFile.
type RunOptions struct {
	// Timeout bounds each function's run (0: no limit beyond ctx).
	Timeout time.Duration
	// Output receives interpreter.print output (nil: discarded).
	Output io.Writer
}

// verifyModule checks each module before it runs (a variable so that a
// test can see what the interpreter does without it).
var verifyModule = stablehlo.Verify

// RunFile parses the file at path and runs its tests.
func RunFile(ctx context.Context, path string, opts RunOptions) FileResult {
	src, err := os.ReadFile(path)
	if err != nil {
		return FileResult{Path: path, Err: err}
	}
	return RunSource(ctx, path, src, opts)
}

// RunSource is RunFile on file contents.
func RunSource(ctx context.Context, path string, src []byte, opts RunOptions) (res FileResult) {
	res.Path = path
	defer func() {
		if rec := recover(); rec != nil {
			res.Err = fmt.Errorf("panic: %v\n%s", rec, shortStack())
		}
	}()
	mods, err := stablehlo.Parse(path, src)
	if err != nil {
		res.Err = fmt.Errorf("parse: %w", err)
		return res
	}
	args, err := runArgs(src)
	if err != nil {
		res.Err = err
		return res
	}
	for _, m := range mods {
		if verifyModule != nil {
			if err := verifyModule(m); err != nil {
				res.Err = fmt.Errorf("verify: %w", err)
				return res
			}
		}
		res.Funcs = append(res.Funcs, runModule(ctx, m, args, opts)...)
	}
	return res
}

// runArgs reads the arguments of a `RUN: ... --interpret --args="[...]"`
// line that is not expected to fail.
var argsRE = regexp.MustCompile(`--args="(\[[^"]*\])"`)

func runArgs(src []byte) ([]Value, error) {
	for _, line := range bytes.Split(src, []byte("\n")) {
		s := strings.TrimSpace(string(line))
		if !strings.HasPrefix(s, "// RUN:") || strings.HasPrefix(s, "// RUN: not ") {
			continue
		}
		m := argsRE.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		a, err := stablehlo.ParseAttr(m[1])
		if err != nil {
			return nil, fmt.Errorf("RUN line --args: %w", err)
		}
		arr, ok := a.(stablehlo.ArrayAttr)
		if !ok {
			return nil, fmt.Errorf("RUN line --args is %T, want an array", a)
		}
		var out []Value
		for _, e := range arr {
			d, ok := e.(*stablehlo.DenseAttr)
			if !ok {
				return nil, fmt.Errorf("RUN line --args holds %T, want dense attributes", e)
			}
			l, err := denseLiteral(d)
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
		return out, nil
	}
	return nil, nil
}

func runModule(ctx context.Context, m *stablehlo.Module, args []Value, opts RunOptions) []FuncResult {
	prefix := ""
	if m.Name != "" {
		prefix = "@" + m.Name + "::"
	}
	p, err := newProgram(m)
	if err != nil {
		return []FuncResult{{Name: prefix + "<module>", Err: err}}
	}
	p.out = opts.Output
	var out []FuncResult
	for _, f := range testFuncs(m) {
		r := FuncResult{Name: prefix + "@" + f.Name}
		start := time.Now()
		fargs := []Value{}
		n := 0
		if f.Type != nil {
			n = len(f.Type.Inputs)
		}
		switch {
		case n == 0:
		case len(args) == n:
			fargs = args
			if err := checkArgs(f, fargs); err != nil {
				r.Err = err
			}
		default:
			r.CompiledOnly = true
			r.Err = p.planReachable(f)
		}
		if r.Err == nil && !r.CompiledOnly {
			r.Err = runTest(ctx, p, f.Name, fargs, opts.Timeout)
		}
		r.Duration = time.Since(start)
		out = append(out, r)
	}
	return out
}

// runTest runs one function on a 1×1 grid under a timeout, turning a
// panic into an error.
func runTest(ctx context.Context, p *program, name string, args []Value, timeout time.Duration) (err error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	defer func() {
		if rec := recover(); rec != nil {
			err = fmt.Errorf("panic: %v\n%s", rec, shortStack())
		}
	}()
	_, err = p.runEntry(ctx, name, args, 1, 1)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %v: %w", timeout, err)
	}
	return err
}

// shortStack returns the first lines of the current goroutine's stack.
func shortStack() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	if len(lines) > 24 {
		lines = lines[:24]
	}
	return strings.Join(lines, "\n")
}
