package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	c := &command{
		name:    "stablehlo fmt",
		usage:   "[-verify] [-w] FILE.mlir|-",
		summary: "parse a StableHLO file and print it in canonical form",
	}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		fs := newFlags(c, stderr, `
Parses FILE (MLIR text: pretty or generic form; '-' reads standard input)
and prints it in the canonical form torchtpu uses for compile-cache keys and
PJRT programs: module and func.func pretty, every op in MLIR's generic form,
values renamed %0, %1, ... and %argN in order of definition, attributes
sorted, large constants as hex, floats spelled exactly, locations dropped.
The output parses back to the same module and prints identically.

A file holding several modules (split by '// -----' lines, as in the
StableHLO test suite) prints them separated the same way.`)
		verify := fs.Bool("verify", false, "also check each module (SSA, per-op types, regions, calls); exit 1 on a problem")
		write := fs.Bool("w", false, "rewrite FILE in place instead of printing")
		if err := fs.Parse(args); err != nil {
			return 2, err
		}
		if fs.NArg() != 1 {
			return 2, fmt.Errorf("want one FILE, have %d arguments: %w", fs.NArg(), errUsage)
		}
		name := fs.Arg(0)
		if *write && name == "-" {
			return 2, fmt.Errorf("-w needs a file, not standard input: %w", errUsage)
		}
		src, err := readInput(name)
		if err != nil {
			return 1, err
		}
		out, err := formatStablehlo(name, src, *verify)
		if err != nil {
			return 1, err
		}
		if *write {
			if err := os.WriteFile(name, out, 0o644); err != nil {
				return 1, fmt.Errorf("writing %s: %w", name, err)
			}
			return 0, nil
		}
		_, err = stdout.Write(out)
		return 0, err
	}
	register(c)
}

func readInput(name string) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		return b, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return b, nil
}

// formatStablehlo parses src and prints each module canonically.
func formatStablehlo(name string, src []byte, verify bool) ([]byte, error) {
	mods, err := stablehlo.Parse(name, src)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for i, m := range mods {
		if verify {
			if err := stablehlo.Verify(m); err != nil {
				return nil, fmt.Errorf("%s: module %d: %w", name, i, err)
			}
		}
		if i > 0 {
			buf.WriteString("\n// -----\n\n")
		}
		if err := stablehlo.Print(&buf, m); err != nil {
			return nil, fmt.Errorf("%s: module %d: %w", name, i, err)
		}
	}
	return buf.Bytes(), nil
}
