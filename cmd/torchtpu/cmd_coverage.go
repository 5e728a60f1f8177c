package main

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/pt2"
)

func init() {
	c := &command{
		name:    "coverage",
		usage:   "MODEL.pt2 [--device D]",
		summary: "say, per op of a program, whether it is lowered, decomposed, a host fallback or unsupported",
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		fs := newFlags(c, stderr, `
Lists the distinct ops of a torch.export archive (the bodies of cond,
while_loop and map included) with how many nodes use each and how torchtpu runs it: lowered (one StableHLO rule), decomposed
(through other ops), host fallback (data-dependent output shape: runs on
the host between compiled segments, counted at run time) or unsupported
(the program cannot run until it is). The last line sums the nodes by kind.
The exit status is 1 when an op is unsupported.

Example:
  torchtpu coverage model.pt2`)
		fs.String("device", "cpu", "device (the registry does not depend on it yet)")
		pos, err := parseInterleaved(fs, args)
		if err != nil {
			return 2, err
		}
		if len(pos) != 1 {
			return 2, fmt.Errorf("%w: want one MODEL.pt2", errUsage)
		}
		p, err := pt2.Load(pos[0])
		if err != nil {
			return 1, err
		}
		counts := p.Graph.OpCounts() // nodes of cond/while/map bodies too
		names := make([]string, 0, len(counts))
		nodes := 0
		for n, c := range counts {
			names = append(names, n)
			nodes += c
		}
		sort.Strings(names)
		byKind := map[string]int{}
		for _, n := range names {
			kind := "unsupported"
			if e, ok := aten.Lookup(n); ok {
				kind = e.Kind.String()
			}
			byKind[kind] += counts[n]
			fmt.Fprintf(stdout, "  %-50s %4d  %s\n", n, counts[n], kind)
		}
		fmt.Fprintf(stdout, "%d ops, %d nodes: %d lowered, %d decomposed, %d host fallback, %d unsupported\n",
			len(names), nodes, byKind["lowered"], byKind["decomposed"], byKind["host fallback"], byKind["unsupported"])
		if byKind["unsupported"] > 0 {
			return 1, nil
		}
		return 0, nil
	}
	register(c)
}
