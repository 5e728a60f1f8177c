package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/torchtpu/torchtpu/aten"
)

func init() {
	c := &command{
		name:    "ops",
		usage:   "[--all] [--device D]",
		summary: "list which Core ATen ops the registry covers, by kind",
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		fs := newFlags(c, stderr, `
Compares the op registry with the 193 Core ATen ops (the ops a program has
after torch.export's run_decompositions()). Each is lowered (one StableHLO
rule), decomposed (written in terms of other ops), host fallback (its
output shape depends on data: it runs on the host between compiled
segments) or missing. In-place and out= variants count through their
functional op. --all lists every registered overload, Core or not.

The registry is the same for every device today; --device is accepted for
scripts written against the CLI contract.`)
		all := fs.Bool("all", false, "list every registered overload")
		fs.String("device", "cpu", "device (the registry does not depend on it yet)")
		if _, err := parseInterleaved(fs, args); err != nil {
			return 2, err
		}
		byKind := map[aten.Kind][]string{}
		var missing []string
		core := aten.CoreOps()
		for _, name := range core {
			e, ok := aten.Lookup(name)
			if !ok {
				missing = append(missing, name)
				continue
			}
			byKind[e.Kind] = append(byKind[e.Kind], name)
		}
		for _, k := range []aten.Kind{aten.Lowered, aten.Decomposed, aten.HostFallback} {
			fmt.Fprintf(stdout, "%s (%d):\n%s\n", k, len(byKind[k]), wrapNames(byKind[k]))
		}
		fmt.Fprintf(stdout, "missing (%d):\n%s\n", len(missing), wrapNames(missing))
		if *all {
			entries := aten.Entries()
			fmt.Fprintf(stdout, "all registered overloads (%d):\n", len(entries))
			for _, e := range entries {
				fmt.Fprintf(stdout, "  %-50s %-13s %s\n", e.Name, e.Kind, e.File)
			}
		}
		covered := len(core) - len(missing)
		fmt.Fprintf(stdout, "%d of %d Core ATen ops covered: %d lowered, %d decomposed, %d host fallback; %d missing\n",
			covered, len(core), len(byKind[aten.Lowered]), len(byKind[aten.Decomposed]), len(byKind[aten.HostFallback]), len(missing))
		return 0, nil
	}
	register(c)
}

// wrapNames prints names indented, several per line.
func wrapNames(names []string) string {
	var b strings.Builder
	line := "  "
	for _, n := range names {
		n = strings.TrimSuffix(strings.TrimPrefix(n, "aten::"), ".default")
		if len(line)+len(n) > 100 {
			b.WriteString(line + "\n")
			line = "  "
		}
		line += n + " "
	}
	if strings.TrimSpace(line) != "" {
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n ")
}
