package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/native"
)

func init() {
	c := &command{
		name:    "stablehlo run",
		usage:   "[-timeout D] [-v] [--device D] FILE.mlir...",
		summary: "execute StableHLO test files on the native backend; their checks decide pass/fail",
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		return runStablehloRun(ctx, c, args, stdout, stderr)
	}
	register(c)
}

const stablehloRunHelp = `
Runs StableHLO MLIR files on the embedded native CPU backend, as
'stablehlo-translate --interpret' does. Every '// -----' chunk of a file is a
module. In a module with @main, @main is the test (given the arguments of a
'--args="[...]"' RUN line when it takes any); otherwise every function
without parameters is a test. The check ops in the file (check.expect_eq,
check.expect_close, custom_call @check.*, ...) decide whether a test passes;
a test also fails when it cannot be executed. A @main that needs arguments
the file does not give is compiled but not run; on a PJRT device, --sample N
runs it at batch size N on sample arguments against the native backend (a
shape-polymorphic program goes through refinement and bucketing).

For each failing test one line is printed: FILE: FUNCTION: REASON. The last
line is "N passed, M failed", counting files. The exit status is 0 only when
no file failed.`

func runStablehloRun(ctx context.Context, c *command, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags(c, stderr, stablehloRunHelp)
	timeout := fs.Duration("timeout", time.Minute, "time limit for each test function")
	verbose := fs.Bool("v", false, "print each passing file, interpreter.print output and whole failure messages")
	device := fs.String("device", "cpu", "run on this device; on a PJRT device the checks are evaluated on the host and\ntests using the reference interpreter's own ops are skipped")
	sample := fs.Int64("sample", 0, "on a PJRT device, also run each @main that takes arguments the file does not give\n(a shape-polymorphic program) at this batch size on sample arguments, against the native backend")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	if fs.NArg() == 0 {
		return 2, fmt.Errorf("%w: no FILE given", errUsage)
	}
	opts := native.RunOptions{Timeout: *timeout}
	if *verbose {
		opts.Output = stdout
	}
	run := func(path string) native.FileResult { return native.RunFile(ctx, path, opts) }
	skipped := 0
	if *device != "cpu" {
		b, err := backend.Open(*device)
		if err != nil {
			return 1, err
		}
		run = func(path string) native.FileResult {
			r := native.RunFileOn(ctx, path, b, opts)
			r = dropUnsupported(r, &skipped)
			if *sample > 0 {
				n, err := runSampled(ctx, b, path, *sample)
				if n > 0 || err != nil {
					r.Funcs = append(r.Funcs, native.FuncResult{Name: fmt.Sprintf("@main (sample arguments, batch %d)", *sample), Err: err})
				}
			}
			return r
		}
	}
	passed, failed := 0, 0
	for _, path := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return 1, err
		}
		r := run(path)
		if r.Err == nil && len(r.Funcs) == 0 {
			continue // every test of the file was skipped
		}
		if r.Passed() {
			passed++
			if *verbose {
				compiled := 0
				for _, f := range r.Funcs {
					if f.CompiledOnly {
						compiled++
					}
				}
				fmt.Fprintf(stdout, "%s: ok (%d tests, %d of them compiled only)\n", path, len(r.Funcs), compiled)
			}
			continue
		}
		failed++
		if r.Err != nil {
			fmt.Fprintf(stdout, "%s: %s\n", path, oneLine(r.Err))
			continue
		}
		for _, f := range r.Funcs {
			if f.Err == nil {
				continue
			}
			msg := oneLine(f.Err)
			if *verbose {
				msg = strings.ReplaceAll(f.Err.Error(), "\n", "\n    ")
			}
			fmt.Fprintf(stdout, "%s: %s: %s\n", path, f.Name, msg)
		}
	}
	if *device != "cpu" {
		fmt.Fprintf(stdout, "%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	} else {
		fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	}
	if failed > 0 {
		return 1, nil
	}
	return 0, nil
}

// oneLine keeps the first line of an error message.
func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	return s
}

// dropUnsupported removes the tests a device cannot run (they use the
// reference interpreter's own ops, or need arguments), counting them.
func dropUnsupported(r native.FileResult, skipped *int) native.FileResult {
	kept := r.Funcs[:0]
	for _, f := range r.Funcs {
		if errors.Is(f.Err, backend.ErrNotImplemented) {
			*skipped++
			continue
		}
		kept = append(kept, f)
	}
	r.Funcs = kept
	return r
}
