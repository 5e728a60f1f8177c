package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/runtime"
)

// defaultSeed is the generator's seed in a fresh process (PyTorch's).
const defaultSeed = 67280421310721

// pinnedDir holds one small case per OpInfo (the smallest sample PyTorch
// could export, 665 of 681 counted OpInfos), copied from a sweep's cases
// folder with their index lines: the sweep's coverage, checked by every
// `go test` without the chroot or the generator.
const pinnedDir = "testdata/pinned"

// TestPinnedOpInfo runs every pinned case on the native cpu device. A case
// must pass unless known_failures.txt names it; a named case must still
// fail (the list may only shrink, so that a fix is recorded where it was
// made). A recovered panic or a crash fails whatever the list says.
func TestPinnedOpInfo(t *testing.T) {
	known, err := readKnownFailures(filepath.Join(pinnedDir, "known_failures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := ReadIndex(pinnedDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 600 {
		t.Fatalf("%s: %d cases, want the pinned set of 665", pinnedDir, len(cases))
	}
	r := &Runner{Dir: pinnedDir, Device: "cpu", Check: true}
	ctx := context.Background()
	pass := 0
	seen := map[string]bool{}
	for _, c := range cases {
		if !c.Counted() {
			continue
		}
		seen[c.Name] = true
		// Each case starts from a fresh process's generator, as
		// `torchtpu verify` would: the draws of a random op (dropout)
		// must not depend on the cases before it.
		runtime.ManualSeed(defaultSeed)
		res := r.Run(ctx, c)
		why, isKnown := known[c.Name]
		switch {
		case res.Outcome == Panic || res.Outcome == Crash:
			t.Errorf("%s: %s: %s", c.Name, res.Outcome, res.Detail)
		case res.Outcome == Pass && isKnown:
			t.Errorf("%s passes now: remove it from known_failures.txt (listed as %q)", c.Name, why)
		case res.Outcome != Pass && !isKnown:
			t.Errorf("%s: %s: %s", c.Name, res.Outcome, res.Detail)
		}
		if res.Outcome == Pass {
			pass++
		}
	}
	for name := range known {
		if !seen[name] {
			t.Errorf("known_failures.txt names %s, which is not a pinned case", name)
		}
	}
	t.Logf("%d of %d pinned OpInfo cases pass, %d known failures", pass, len(seen), len(known))
}

// readKnownFailures reads "NAME  cause" lines; # starts a comment.
func readKnownFailures(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, why, _ := strings.Cut(line, " ")
		out[name] = strings.TrimSpace(why)
	}
	return out, sc.Err()
}
