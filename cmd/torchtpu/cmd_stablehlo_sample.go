package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// runSampled runs every @main of the file that takes arguments the file
// does not give (a shape-polymorphic program) at batch size n on sample
// arguments (every ? dim and leading scalar integer n), on b and on the
// native backend, and compares the results (rtol 1e-3, atol 1e-5). It
// returns the tests it ran and the first failure. A program the native
// backend cannot run at those shapes is not counted.
func runSampled(ctx context.Context, b backend.Backend, path string, n int64) (int, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	mods, err := stablehlo.Parse(path, src)
	if err != nil {
		return 0, err
	}
	ran := 0
	for mi, m := range mods {
		f := m.Func("main")
		if f == nil || f.Type == nil || len(f.Type.Inputs) == 0 || strings.Contains(string(src), "interpreter.") {
			continue
		}
		args, err := pjrttest.SampleArgs(f.Type.Inputs, n, n)
		if err != nil {
			return ran, err
		}
		nm, _ := stablehlo.Parse(path, src)
		nat, err := (&native.Backend{}).Compile(ctx, nm[mi], backend.Options{})
		if err != nil {
			continue
		}
		want, err := nat.Run(ctx, args)
		if err != nil {
			continue
		}
		ran++
		exe, err := b.Compile(ctx, m, backend.Options{})
		if err != nil {
			return ran, fmt.Errorf("@main at batch %d: compile: %w", n, err)
		}
		got, err := exe.Run(ctx, args)
		if err != nil {
			return ran, fmt.Errorf("@main at batch %d: %w", n, err)
		}
		if err := pjrttest.Compare(got, want, 1e-3, 1e-5); err != nil {
			return ran, fmt.Errorf("@main at batch %d: against the native backend: %w", n, err)
		}
	}
	return ran, nil
}
