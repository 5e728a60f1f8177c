package main

import (
	"context"
	"fmt"
	"io"

	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

func init() {
	c := &command{
		name:    "verify",
		usage:   "MODEL.pt2 --io IO.safetensors [--rtol R --atol A] [--device D] [--fallback cpu|error]",
		summary: "run a program on recorded inputs and compare with the recorded outputs",
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		fs := newFlags(c, stderr, `
Runs a torch.export archive on the inputs of an I/O file (input.0, ...) and
compares each output with the expected one (output.0, ...), as PyTorch
produced it. Per output it prints the max absolute and relative error and
ok / MISMATCH; the exit status is 0 only when every output matches.

Floats match when |got - want| <= atol + rtol*|want| (NaN matches NaN,
infinities must be equal). The default tolerances depend on the dtype
(torch.testing's: float32 rtol 1.3e-6 atol 1e-5, float64 1e-7/1e-7,
float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5); --rtol and --atol override them
for every float output. Integer and bool outputs must match exactly.

Example:
  torchtpu verify model.pt2 --io model.io.safetensors --rtol 1e-4`)
		ioPath := fs.String("io", "", "safetensors file with input.N and the expected output.N (required)")
		rtol := fs.Float64("rtol", -1, "relative tolerance for float outputs (default: per dtype)")
		atol := fs.Float64("atol", -1, "absolute tolerance for float outputs (default: per dtype)")
		device := fs.String("device", "cpu", "device to run on (see 'torchtpu devices')")
		rf := addRuntimeFlags(fs) // cache, fallback, buckets, metrics, trace (flags_runtime.go)
		pos, err := parseInterleaved(fs, args)
		if err != nil {
			return 2, err
		}
		if len(pos) != 1 || *ioPath == "" {
			return 2, fmt.Errorf("%w: want MODEL.pt2 and --io IO.safetensors", errUsage)
		}
		_, prog, err := loadProgram(pos[0], *device)
		if err != nil {
			return 1, err
		}
		if err := rf.apply(prog, stderr); err != nil {
			return 2, err
		}
		defer rf.done(prog, stderr)
		f, err := safetensors.Load(*ioPath)
		if err != nil {
			return 1, err
		}
		settleHeap(0, 0)
		outs, stats, err := prog.Run(ctx, f.Inputs())
		if err != nil {
			return 1, err
		}
		want := f.Outputs()
		if len(outs) != len(want) {
			return 1, fmt.Errorf("the program returned %d outputs, the I/O file has %d", len(outs), len(want))
		}
		bad := 0
		for i, w := range want {
			tol := runtime.DefaultTolerance(w.DType)
			if *rtol >= 0 {
				tol.RTol = *rtol
			}
			if *atol >= 0 {
				tol.ATol = *atol
			}
			cmp := runtime.Compare(outs[i], w, tol)
			status := "ok"
			if !cmp.OK {
				status = "MISMATCH: " + cmp.Detail
				if cmp.Mismatches > 0 {
					status += fmt.Sprintf(" (%d of %d elements)", cmp.Mismatches, w.Len())
				}
				bad++
			}
			fmt.Fprintf(stdout, "output.%d %s%s  max abs %.3g  max rel %.3g  %s\n", i, w.DType.Torch(), shapeString(w.Shape), cmp.MaxAbs, cmp.MaxRel, status)
		}
		printStats(stderr, stats)
		if bad > 0 {
			fmt.Fprintf(stdout, "FAIL: %d of %d outputs differ\n", bad, len(want))
			return 1, nil
		}
		fmt.Fprintf(stdout, "PASS: %d outputs match\n", len(want))
		return 0, nil
	}
	register(c)
}
