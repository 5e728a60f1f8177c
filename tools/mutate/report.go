package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// record counts a case; one that panicked, died or hung is kept.
func (h *harness) record(c *tcase, rep reply) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.counts[c.kind] == nil {
		h.counts[c.kind] = map[string]int{}
	}
	h.counts[c.kind][rep.Outcome]++
	if rep.Outcome == "error" {
		stage := rep.Stage
		if strings.Contains(rep.Msg, "deadline exceeded") || strings.Contains(rep.Msg, "timed out") {
			stage += " (timeout)"
		}
		h.stages[c.kind+"/"+stage]++
	}
	what := fmt.Sprintf("case %d (%s of %s: %s)", c.id, c.kind, c.base, c.what)
	h.slowest = append(h.slowest, caseTime{c.id, rep.Seconds, what})
	sort.Slice(h.slowest, func(i, j int) bool { return h.slowest[i].seconds > h.slowest[j].seconds })
	if len(h.slowest) > 5 {
		h.slowest = h.slowest[:5]
	}
	if h.verbose {
		fmt.Printf("%s: %s %s %.3fs %s\n", what, rep.Outcome, rep.Stage, rep.Seconds, firstLine(rep.Msg))
	}
	switch rep.Outcome {
	case "ok", "error":
		return
	}
	dir := filepath.Join(h.keep, fmt.Sprintf("case-%d", c.id))
	os.MkdirAll(dir, 0o755)
	for name, data := range c.files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	note := fmt.Sprintf("%s\n%s: %s\n\nreproduce: go run ./tools/mutate -seed %d -first %d -n 1 -kinds %s -v\n",
		what, rep.Outcome, rep.Msg, h.seed, c.id, strings.Join(h.kinds, ","))
	os.WriteFile(filepath.Join(dir, "README"), []byte(note), 0o644)
	h.bad = append(h.bad, fmt.Sprintf("%s: %s: %s [kept in %s]", what, rep.Outcome, firstLine(rep.Msg), dir))
	fmt.Printf("!! %s: %s: %s\n", what, rep.Outcome, firstLine(rep.Msg))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// report prints the counts and returns the exit status: 1 when a case
// panicked, died or hung.
func (h *harness) report(n int, wall time.Duration) int {
	fmt.Printf("mutate: %d cases (seed %d) in %.1fs, %.1f cases/s\n", n, h.seed, wall.Seconds(), float64(n)/wall.Seconds())
	outcomes := []string{"ok", "error", "panic", "fatal", "died", "hang"}
	total := map[string]int{}
	for _, k := range h.kinds {
		var parts []string
		for _, o := range outcomes {
			parts = append(parts, fmt.Sprintf("%s %d", o, h.counts[k][o]))
			total[o] += h.counts[k][o]
		}
		fmt.Printf("  %-12s %s\n", k, strings.Join(parts, ", "))
	}
	var stages []string
	for s, c := range h.stages {
		stages = append(stages, fmt.Sprintf("%s %d", s, c))
	}
	sort.Strings(stages)
	fmt.Printf("  errors by stage: %s\n", strings.Join(stages, ", "))
	for _, s := range h.slowest {
		fmt.Printf("  slow: %.2fs %s\n", s.seconds, s.what)
	}
	badN := total["panic"] + total["fatal"] + total["died"] + total["hang"]
	fmt.Printf("mutate: panics %d, fatal %d, died %d, hangs %d\n", total["panic"], total["fatal"], total["died"], total["hang"])
	for _, b := range h.bad {
		fmt.Println("  " + b)
	}
	if badN > 0 {
		return 1
	}
	return 0
}
