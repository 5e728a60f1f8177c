package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// corpus holds the real files the cases are made from.
type corpus struct {
	models []string // .pt2 archives of whole models, each with X.io.safetensors beside it
	ops    []string // .pt2 archives of single ops, each with its .io.safetensors
	mlir   []string // StableHLO programs of the conformance suite
}

// maxBase bounds the size of a base file: the 47 MB resnet18 archive
// would make every one of its cases slow without reaching more code.
const maxBase = 4 << 20

func loadCorpus(fixtures, conformance string) (*corpus, error) {
	c := &corpus{}
	add := func(dst *[]string, pattern string, needIO bool) {
		m, _ := filepath.Glob(pattern)
		sort.Strings(m)
		for _, f := range m {
			st, err := os.Stat(f)
			if err != nil || st.Size() > maxBase {
				continue
			}
			if needIO {
				if _, err := os.Stat(ioFile(f)); err != nil {
					continue
				}
			}
			*dst = append(*dst, f)
		}
	}
	for _, sub := range []string{"models", "models-torch2.6"} {
		add(&c.models, filepath.Join(fixtures, sub, "*.pt2"), true)
	}
	for _, sub := range []string{"ops", "ops-torch2.6"} {
		add(&c.ops, filepath.Join(fixtures, sub, "*.pt2"), true)
	}
	for _, sub := range []string{"interpret", "testdata"} {
		m, _ := filepath.Glob(filepath.Join(conformance, sub, "*.mlir"))
		sort.Strings(m)
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && st.Size() <= 32<<10 {
				c.mlir = append(c.mlir, f)
			}
		}
	}
	// The legalization passes' seed programs (backend/pjrt/legalize),
	// one or more per pass: mutated, they reach the pipeline's rewrites
	// (runStablehlo's legalize stage) more often than the suite does.
	if seeds, _ := filepath.Glob(filepath.Join("backend", "pjrt", "legalize", "testdata", "seeds", "*.mlir")); len(seeds) > 0 {
		sort.Strings(seeds)
		c.mlir = append(c.mlir, seeds...)
	}
	if len(c.models) == 0 || len(c.ops) == 0 {
		return nil, fmt.Errorf("no fixture archives under %s (models, ops)", fixtures)
	}
	if len(c.mlir) == 0 {
		return nil, fmt.Errorf("no conformance programs under %s", conformance)
	}
	return c, nil
}

// ioFile is the I/O file of a fixture archive: X.pt2 → X.io.safetensors.
func ioFile(archive string) string { return strings.TrimSuffix(archive, ".pt2") + ".io.safetensors" }

// archive picks a base archive: a whole model one case in three, else an
// op.
func (c *corpus) archive(r *rand.Rand) string {
	if r.Intn(3) == 0 {
		return c.models[r.Intn(len(c.models))]
	}
	return c.ops[r.Intn(len(c.ops))]
}
