package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Case is one line of the generator's index (gen.py): an OpInfo sample
// exported to NAME.pt2 with NAME.io.safetensors, or a sample PyTorch
// itself could not run or export (Status other than "ok").
type Case struct {
	Name   string `json:"name"`
	Op     string `json:"op"`
	DType  string `json:"dtype"`
	Sample int    `json:"sample"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Random: the values depend on the random generator or uninitialized
	// memory; only dtypes and shapes are compared.
	Random bool `json:"random,omitempty"`
	// ExpectError is PyTorch's error for an error_inputs case (the
	// program must fail, cleanly).
	ExpectError string   `json:"expect_error,omitempty"`
	Ops         []string `json:"ops,omitempty"`
}

// Counted reports whether the case is one PyTorch could run and export.
func (c *Case) Counted() bool { return c.Status == "ok" }

// ReadIndex reads every index-*.jsonl of a cases folder (one per shard),
// drops the generator's per-op "done" markers and sorts the cases by name.
// A name seen twice (a resumed shard) keeps its last line.
func ReadIndex(dir string) ([]*Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "index-*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no index-*.jsonl (run tools/opinfo/gen.py first)", dir)
	}
	byName := map[string]*Case{}
	for _, f := range files {
		if err := readIndexFile(f, byName); err != nil {
			return nil, err
		}
	}
	out := make([]*Case, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func readIndexFile(path string, byName map[string]*Case) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if c.Status == "done" || c.Name == "" {
			continue
		}
		byName[c.Name] = &c
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
