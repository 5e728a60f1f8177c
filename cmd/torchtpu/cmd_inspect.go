package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/pt2"
)

func init() {
	c := &command{name: "inspect", usage: "[--json] [--nodes] MODEL.pt2", summary: "show a .pt2 program: signature, symbolic dims, ops, parameters"}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		fs := newFlags(c, stderr, `
Reads a torch.export archive (torch.export.save, current or legacy layout)
and prints what a runtime needs to know about it, without running it:

  program     torch version, export schema version, archive layout, and
              whether the graph is Core ATen (run_decompositions) or the
              training IR torch.export.export produces
  inputs      the user inputs in I/O-file order (input.0, input.1, ...) with
              dtype and shape; symbolic dims print as expressions (s77,
              2*s77) and each symbol's range constraint is listed
  outputs     the user outputs (output.0, ...) and any buffer mutations
  parameters  count and bytes of parameters, buffers and constants
  ops         a histogram of the aten ops the graph calls

With --passes the fx passes (functionalize, cse, dce) run first, so the
listing shows the program the runtime would lower after them;
--disable-pass and --dump-after (comma-separated pass names, or "all") help
to debug them.

Example:
  torchtpu inspect model.pt2
  torchtpu inspect --nodes model.pt2     # also list every node with its source line
  torchtpu inspect --json model.pt2      # the same facts as JSON`)
		asJSON := fs.Bool("json", false, "print JSON instead of text")
		nodes := fs.Bool("nodes", false, "also list every node")
		passes := fs.Bool("passes", false, "run the fx passes before listing")
		disable := fs.String("disable-pass", "", "with --passes: comma-separated passes to skip")
		dumpAfter := fs.String("dump-after", "", "with --passes: print the graph after these passes (\"all\" for every one)")
		if err := fs.Parse(args); err != nil {
			return 2, err
		}
		if fs.NArg() != 1 {
			return 2, fmt.Errorf("need one MODEL.pt2: %w", errUsage)
		}
		p, err := pt2.Load(fs.Arg(0))
		if err != nil {
			return 1, err
		}
		if *passes {
			opt := fx.PassOptions{Verify: true, Disable: nameSet(*disable), DumpAfter: nameSet(*dumpAfter), Dump: stdout}
			if err := fx.RunPasses(p.Graph, opt); err != nil {
				return 1, err
			}
		}
		s := summarize(p)
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return 0, enc.Encode(s)
		}
		printSummary(stdout, s)
		if *nodes {
			fmt.Fprintln(stdout, "\nnodes:")
			for _, n := range p.Graph.Nodes {
				fmt.Fprintf(stdout, "  %s\n", n)
				if src := n.SourceLine(); src != "" {
					fmt.Fprintf(stdout, "      # %s\n", src)
				}
			}
		}
		return 0, nil
	}
	register(c)
}

type inspectIO struct {
	Name  string `json:"name"`           // input.0 / output.0 / buffer FQN
	Value string `json:"value"`          // graph value name
	Type  string `json:"type"`           // f32[s77,16], or the kind of a non-tensor
	Kind  string `json:"kind,omitempty"` // for outputs other than user_output
}

type inspectWeights struct {
	Count int   `json:"count"`
	Bytes int64 `json:"bytes"`
}

type inspectSummary struct {
	File          string            `json:"-"`
	TorchVersion  string            `json:"torch_version"`
	SchemaVersion string            `json:"schema_version"`
	Layout        string            `json:"layout"`
	Verifiers     []string          `json:"verifiers"`
	Inputs        []inspectIO       `json:"inputs"`
	Constants     []string          `json:"constant_inputs,omitempty"`
	Outputs       []inspectIO       `json:"outputs"`
	Symbols       map[string]string `json:"symbols"`
	Params        inspectWeights    `json:"parameters"`
	Buffers       inspectWeights    `json:"buffers"`
	TensorConsts  inspectWeights    `json:"tensor_constants"`
	Nodes         int               `json:"nodes"`
	Ops           map[string]int    `json:"ops"`
	Warnings      []string          `json:"warnings,omitempty"`
}

func valueType(g *fx.Graph, a fx.Arg) string {
	switch a.Kind {
	case fx.ArgTensor:
		if m := g.Tensor(a.Name); m != nil {
			return m.String()
		}
		return "tensor"
	case fx.ArgSymInt:
		return "SymInt"
	case fx.ArgSymFloat:
		return "SymFloat"
	case fx.ArgSymBool:
		return "SymBool"
	}
	return a.Kind.String() + " " + a.String()
}

func summarize(p *pt2.Program) *inspectSummary {
	g := p.Graph
	s := &inspectSummary{
		TorchVersion: p.TorchVersion, SchemaVersion: p.SchemaVersion.String(), Layout: p.Layout,
		Verifiers: p.Verifiers, Symbols: map[string]string{}, Nodes: len(g.Nodes), Ops: g.OpCounts(),
		Warnings: p.Warnings,
	}
	n := 0
	for _, spec := range g.Signature.Inputs {
		switch spec.Kind {
		case fx.InputUser:
			if spec.Arg.Kind == fx.ArgTensor || strings.HasPrefix(spec.Arg.Kind.String(), "sym_") {
				s.Inputs = append(s.Inputs, inspectIO{Name: fmt.Sprintf("input.%d", n), Value: spec.Arg.Name + symName(spec.Arg), Type: valueType(g, spec.Arg)})
				n++
			} else {
				s.Constants = append(s.Constants, spec.Arg.String())
			}
		case fx.InputConstant:
			s.Constants = append(s.Constants, spec.Target+"="+spec.Value.String())
		}
	}
	n = 0
	for _, spec := range g.Signature.Outputs {
		io := inspectIO{Value: strings.Join(spec.Arg.ValueNames(), ","), Type: valueType(g, spec.Arg)}
		if spec.Kind == fx.OutputUser {
			io.Name = fmt.Sprintf("output.%d", n)
			n++
		} else {
			io.Name, io.Kind = spec.Target, spec.Kind.String()
		}
		s.Outputs = append(s.Outputs, io)
	}
	syms := map[string]bool{}
	for _, in := range g.Inputs {
		if m := g.Tensor(in.Name); in.Kind == fx.ArgTensor && m != nil {
			for _, x := range m.Symbols() {
				syms[x] = true
			}
		}
	}
	for x := range g.Ranges {
		syms[x] = true
	}
	for x := range syms {
		r, ok := g.Ranges[x]
		if ok {
			s.Symbols[x] = r.String()
		} else {
			s.Symbols[x] = "unconstrained"
		}
	}
	for _, l := range p.Params {
		s.Params.Count++
		s.Params.Bytes += int64(len(l.Data))
	}
	for _, l := range p.Buffers {
		s.Buffers.Count++
		s.Buffers.Bytes += int64(len(l.Data))
	}
	for _, l := range p.Constants {
		s.TensorConsts.Count++
		s.TensorConsts.Bytes += int64(len(l.Data))
	}
	return s
}

func symName(a fx.Arg) string {
	if len(a.SymInts) == 1 {
		return a.SymInts[0].Name
	}
	return ""
}

func printSummary(w io.Writer, s *inspectSummary) {
	ir := "training IR (torch.export.export)"
	for _, v := range s.Verifiers {
		if v == "ATEN" {
			ir = "Core ATen (run_decompositions)"
		}
	}
	fmt.Fprintf(w, "program:    torch %s, export schema %s, %s layout, %s\n", s.TorchVersion, s.SchemaVersion, s.Layout, ir)
	fmt.Fprintln(w, "inputs:")
	for _, in := range s.Inputs {
		fmt.Fprintf(w, "  %-10s %-24s %s\n", in.Name, in.Type, in.Value)
	}
	for _, c := range s.Constants {
		fmt.Fprintf(w, "  (constant) %s\n", c)
	}
	if len(s.Symbols) > 0 {
		fmt.Fprintln(w, "symbols:")
		for _, x := range inspectKeys(s.Symbols) {
			fmt.Fprintf(w, "  %-10s %s\n", x, s.Symbols[x])
		}
	}
	fmt.Fprintln(w, "outputs:")
	for _, o := range s.Outputs {
		if o.Kind != "" {
			fmt.Fprintf(w, "  %-10s %-24s %s (%s)\n", "", o.Type, o.Value, o.Kind+" of "+o.Name)
			continue
		}
		fmt.Fprintf(w, "  %-10s %-24s %s\n", o.Name, o.Type, o.Value)
	}
	fmt.Fprintf(w, "parameters: %d tensors, %s\n", s.Params.Count, inspectBytes(s.Params.Bytes))
	fmt.Fprintf(w, "buffers:    %d tensors, %s\n", s.Buffers.Count, inspectBytes(s.Buffers.Bytes))
	if s.TensorConsts.Count > 0 {
		fmt.Fprintf(w, "constants:  %d tensors, %s\n", s.TensorConsts.Count, inspectBytes(s.TensorConsts.Bytes))
	}
	fmt.Fprintf(w, "ops:        %d nodes, %d distinct\n", s.Nodes, len(s.Ops))
	ops := inspectKeys(s.Ops)
	sort.SliceStable(ops, func(i, j int) bool { return s.Ops[ops[i]] > s.Ops[ops[j]] })
	for _, op := range ops {
		fmt.Fprintf(w, "  %6d  %s\n", s.Ops[op], op)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

func inspectBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func inspectKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func nameSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			m[n] = true
		}
	}
	return m
}
