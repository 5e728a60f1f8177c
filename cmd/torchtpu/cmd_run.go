package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

func init() {
	c := &command{
		name:    "run",
		usage:   "MODEL.pt2 [--inputs IN.safetensors] [--out OUT.safetensors] [--device D] [--fallback cpu|error] [--seed N]",
		summary: "run an exported program and print (or save) its outputs",
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		fs := newFlags(c, stderr, `
Runs a torch.export archive (.pt2) on a device and prints each output:
its name, dtype and shape, then the values as PyTorch prints a tensor
(long tensors are summarised with "...").

Inputs come from a safetensors file whose tensors are named input.0,
input.1, ... in the order of the program's user inputs; without --inputs
the example inputs saved in the archive are used. --out writes the outputs
as output.0, output.1, ... to a safetensors file.

Example:
  torchtpu run examples/mlp.pt2
  torchtpu run model.pt2 --inputs in.safetensors --out out.safetensors`)
		inputs := fs.String("inputs", "", "safetensors file with input.0, input.1, ... (default: the archive's sample inputs)")
		out := fs.String("out", "", "write the outputs to this safetensors file")
		device := fs.String("device", "cpu", "device to run on (see 'torchtpu devices')")
		seed := fs.Int64("seed", -1, "seed the random generator of rand/randn/randperm (like torch.manual_seed; -1: the default seed)")
		rf := addRuntimeFlags(fs) // cache, fallback, buckets, metrics, trace (flags_runtime.go)
		pos, err := parseInterleaved(fs, args)
		if err != nil {
			return 2, err
		}
		if len(pos) != 1 {
			return 2, fmt.Errorf("%w: want one MODEL.pt2, have %d arguments", errUsage, len(pos))
		}
		p, prog, err := loadProgram(pos[0], *device)
		if err != nil {
			return 1, err
		}
		if err := rf.apply(prog, stderr); err != nil {
			return 2, err
		}
		defer rf.done(prog, stderr)
		if *seed >= 0 {
			runtime.ManualSeed(uint64(*seed))
		}
		ins, err := programInputs(p, *inputs)
		if err != nil {
			return 1, err
		}
		settleHeap(0, 0)
		outs, stats, err := prog.Run(ctx, ins)
		if err != nil {
			return 1, err
		}
		for i, o := range outs {
			if o == nil {
				fmt.Fprintf(stdout, "output.%d: None\n", i)
				continue
			}
			fmt.Fprintf(stdout, "output.%d: %s%s\n%s\n", i, o.DType.Torch(), shapeString(o.Shape), runtime.Format(o, 3))
		}
		printStats(stderr, stats)
		if *out != "" {
			m := map[string]*literal.Literal{}
			for i, o := range outs {
				if o != nil {
					m[fmt.Sprintf("output.%d", i)] = o
				}
			}
			if err := safetensors.Save(*out, m, nil); err != nil {
				return 1, err
			}
		}
		return 0, nil
	}
	register(c)
}

// parseInterleaved parses flags that may come before or after the
// positional arguments ("run MODEL.pt2 --inputs X").
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// loadProgram reads an archive and prepares it for a device.
func loadProgram(path, device string) (*pt2.Program, *runtime.Program, error) {
	p, err := pt2.Load(path)
	if err != nil {
		return nil, nil, err
	}
	prog, err := runtime.FromPT2(p, device)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, prog, nil
}

// programInputs reads input.N from a safetensors file, or the archive's
// sample inputs when path is "".
func programInputs(p *pt2.Program, path string) ([]*literal.Literal, error) {
	if path == "" {
		if p.SampleInputs == nil {
			return nil, fmt.Errorf("the archive has no sample inputs: pass --inputs")
		}
		var ins []*literal.Literal
		for _, l := range p.SampleInputs {
			if l != nil {
				ins = append(ins, l)
			}
		}
		return ins, nil
	}
	// Only the inputs: a model's .io.safetensors holds its expected
	// outputs too, which need not take memory here.
	f, err := safetensors.LoadOnly(path, safetensors.IsInput)
	if err != nil {
		return nil, err
	}
	return f.Inputs(), nil
}

// printStats reports host fallbacks, if any.
func printStats(w io.Writer, s *runtime.Stats) {
	if s == nil || len(s.HostFallbacks) == 0 {
		return
	}
	var parts []string
	for op, n := range s.HostFallbacks {
		parts = append(parts, fmt.Sprintf("%s ×%d", op, n))
	}
	sort.Strings(parts)
	fmt.Fprintf(w, "host fallbacks: %s (%d bytes moved, %d compiled segments)\n", strings.Join(parts, ", "), s.HostBytes, s.Segments)
}

// shapeString prints a shape as PyTorch does: [2, 3].
func shapeString(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
