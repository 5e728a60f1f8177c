package fx

import (
	"fmt"
	"io"
	"strings"
)

// Pass is one graph transformation.
type Pass struct {
	Name string
	Doc  string
	// After lists passes that must run before this one when both run.
	After []string
	// Run transforms g in place and reports whether it changed anything.
	Run func(g *Graph, ops OpInfo) (changed bool, err error)
}

// Passes is the ordered table of graph passes RunPasses applies.
var Passes = []Pass{
	{Name: "functionalize", Doc: "in-place ops become functional ones; later uses read the new value; " +
		"a mutated buffer, parameter or user input becomes a mutation output", Run: Functionalize},
	{Name: "cse", Doc: "merge pure nodes with the same target and inputs", After: []string{"functionalize"}, Run: CSE},
	{Name: "dce", Doc: "remove pure nodes whose outputs are unused", After: []string{"functionalize", "cse"}, Run: DCE},
}

// PassOptions configures RunPasses.
type PassOptions struct {
	// Ops describes operators; nil means NameOpInfo.
	Ops OpInfo
	// Disable skips passes by name.
	Disable map[string]bool
	// DumpAfter writes the graph after the named passes ("all" for every one).
	DumpAfter map[string]bool
	Dump      io.Writer
	// Verify runs Graph.Verify after each pass.
	Verify bool
}

// CheckPassOrder reports a table whose order contradicts an After entry.
func CheckPassOrder(passes []Pass) error {
	pos := map[string]int{}
	for i, p := range passes {
		if _, dup := pos[p.Name]; dup {
			return fmt.Errorf("fx: pass %q listed twice", p.Name)
		}
		pos[p.Name] = i
	}
	for i, p := range passes {
		for _, a := range p.After {
			j, ok := pos[a]
			if !ok {
				return fmt.Errorf("fx: pass %q runs after unknown pass %q", p.Name, a)
			}
			if j > i {
				return fmt.Errorf("fx: pass %q must run after %q", p.Name, a)
			}
		}
	}
	return nil
}

// RunPasses applies the enabled passes of Passes in order.
func RunPasses(g *Graph, opt PassOptions) error {
	if err := CheckPassOrder(Passes); err != nil {
		return err
	}
	known := map[string]bool{"all": true}
	for _, p := range Passes {
		known[p.Name] = true
	}
	for n := range opt.Disable {
		if !known[n] {
			return fmt.Errorf("fx: unknown pass %q", n)
		}
	}
	ops := opt.Ops
	if ops == nil {
		ops = NameOpInfo{}
	}
	for _, p := range Passes {
		if opt.Disable[p.Name] {
			continue
		}
		if _, err := p.Run(g, ops); err != nil {
			return fmt.Errorf("fx: pass %s: %w", p.Name, err)
		}
		g.Reindex()
		if opt.Verify {
			if err := g.Verify(); err != nil {
				return fmt.Errorf("fx: after pass %s: %w", p.Name, err)
			}
		}
		if opt.Dump != nil && (opt.DumpAfter[p.Name] || opt.DumpAfter["all"]) {
			fmt.Fprintf(opt.Dump, "// after %s\n%s", p.Name, g.Format())
		}
	}
	return nil
}

// Format prints the graph, one node a line, for dumps and golden tests.
func (g *Graph) Format() string {
	var b strings.Builder
	ins := make([]string, len(g.Inputs))
	for i, in := range g.Inputs {
		ins[i] = in.String()
		if m := g.Tensors[in.Name]; m != nil && in.Kind == ArgTensor {
			ins[i] += ": " + m.String()
		}
		if g.Signature != nil && i < len(g.Signature.Inputs) {
			if s := g.Signature.Inputs[i]; s.Kind != InputUser {
				ins[i] += " (" + s.Kind.String() + " " + s.Target + ")"
			}
		}
	}
	fmt.Fprintf(&b, "graph(%s) {\n", strings.Join(ins, ", "))
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	outs := make([]string, len(g.Outputs))
	for i, o := range g.Outputs {
		outs[i] = o.String()
		if g.Signature != nil && i < len(g.Signature.Outputs) {
			if s := g.Signature.Outputs[i]; s.Kind != OutputUser {
				outs[i] += " (" + s.Kind.String() + " " + s.Target + ")"
			}
		}
	}
	fmt.Fprintf(&b, "  return %s\n}\n", strings.Join(outs, ", "))
	return b.String()
}
