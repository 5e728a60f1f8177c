package capi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/torchtpu/torchtpu/backend/native"
)

// The in-process step profile. With TORCHTPU_STEP_PROFILE=DIR in the
// environment, every program the process loads times the steps of its
// runs on the native backend (native.Profile, what `torchtpu bench
// --profile` prints for its own runs), and every stepProfileEvery runs
// writes what it has so far to DIR/NAME-SEQ.steps.txt (NAME the
// program's name option, "program" without one; SEQ its place in the
// order the process loaded programs: a training step's forward graph
// before its backward). Side by side with `torchtpu bench --profile` on
// the same graph (dumped with TORCHTPU_DUMP_DIR), it shows which steps
// run slower inside the host process and which do not.
var (
	stepProfileDir = os.Getenv("TORCHTPU_STEP_PROFILE")
	programSeq     atomic.Int64
)

// stepProfileEvery is how many runs pass between two writes of a
// program's step profile.
const stepProfileEvery = 50

// stepProfile is one program's step profile; nil when the environment
// asks for none (its methods then do nothing).
type stepProfile struct {
	prof *native.Profile
	path string
	wall []time.Duration // each run's wall time in the engine
	// over all runs: the inputs a bound call gathered into dense copies
	// (strided ones) and the time its inputs took; the outputs RunInto
	// copied into their destinations (not computed in place) and the
	// time it took storing them
	ins, outs moved
}

// moved sums tensors copied around the runs: the time the copies' loop
// took, and how many tensors and bytes it copied.
type moved struct {
	d        time.Duration
	n, bytes int
}

func (m *moved) add(d time.Duration, n, bytes int) {
	m.d += d
	m.n += n
	m.bytes += bytes
}

// line describes m per run (of runs), the tensors copied as what (e.g.
// "gathered from strided tensors").
func (m *moved) line(runs float64, what string) string {
	return fmt.Sprintf("%.3f ms per run, %.1f %s per run (%.1f KB)", float64(m.d)/1e6/runs, float64(m.n)/runs, what, float64(m.bytes)/1024/runs)
}

func newStepProfile(name string) *stepProfile {
	if stepProfileDir == "" {
		return nil
	}
	file := fmt.Sprintf("%s-%d.steps.txt", strings.Map(safeFileRune, name), programSeq.Add(1))
	return &stepProfile{prof: &native.Profile{}, path: filepath.Join(stepProfileDir, file)}
}

// safeFileRune keeps a program name's letters, digits, '-', '_' and '.'
// in a file name, and turns the rest into '_'.
func safeFileRune(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		return r
	}
	return '_'
}

// context returns ctx carrying the profile, when there is one.
func (s *stepProfile) context(ctx context.Context) context.Context {
	if s == nil {
		return ctx
	}
	return native.WithProfile(ctx, s.prof)
}

// ran records a run's wall time and writes the profile every
// stepProfileEvery runs. The caller holds the program's lock.
func (s *stepProfile) ran(d time.Duration) {
	if s == nil {
		return
	}
	s.wall = append(s.wall, d)
	if len(s.wall)%stepProfileEvery == 0 {
		// a profile that cannot be written is left out: the runs go on
		_ = os.WriteFile(s.path, s.format(40), 0o644)
	}
}

// stored records how RunInto stored a run's outputs: in d, copying
// copied of them (bytes in all); the rest were computed in place.
func (s *stepProfile) stored(d time.Duration, copied, bytes int) {
	if s != nil {
		s.outs.add(d, copied, bytes)
	}
}

// gathered records how a bound call took a run's inputs: in d, copying
// gathered strided ones into dense memory (bytes in all); the rest read
// in place.
func (s *stepProfile) gathered(d time.Duration, gathered, bytes int) {
	if s != nil {
		s.ins.add(d, gathered, bytes)
	}
}

// format is the profile as text: the runs' median wall time, the steps'
// per-run medians by kind, then the top steps, in ms per run.
func (s *stepProfile) format(top int) []byte {
	var b strings.Builder
	runs := s.prof.Runs()
	wall := slices.Clone(s.wall)
	slices.Sort(wall)
	kinds := s.prof.ByKind()
	var steps time.Duration
	for _, k := range kinds {
		steps += k.Median
	}
	perRun := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(max(runs, 1)) }
	fmt.Fprintf(&b, "runs %d; run (wall, in the engine) median %.3f ms; steps take %.3f ms per run (medians)\n",
		runs, float64(wall[len(wall)/2])/1e6, perRun(steps))
	n := float64(len(s.wall))
	if s.ins.d > 0 {
		fmt.Fprintf(&b, "inputs taken before the run: %s, the rest read in place\n", s.ins.line(n, "gathered from strided tensors"))
	}
	if s.outs.d > 0 {
		fmt.Fprintf(&b, "outputs stored after the run: %s, the rest computed in place\n", s.outs.line(n, "copied"))
	}
	fmt.Fprintf(&b, "%-28s %9s %9s %9s\n", "kind", "ms/run", "mean ms", "calls/run")
	for _, k := range kinds {
		fmt.Fprintf(&b, "%-28s %9.3f %9.3f %9.1f\n", k.Kind, perRun(k.Median), perRun(k.Total), float64(k.Count)/float64(max(runs, 1)))
	}
	fmt.Fprintf(&b, "top steps: ms/run, mean ms, calls, step\n")
	all := s.prof.BySteps("")
	for _, e := range all[:min(top, len(all))] {
		fmt.Fprintf(&b, "%9.3f %9.3f %6.1f  %s: %s\n", perRun(e.Median), perRun(e.Total), float64(e.Count)/float64(max(runs, 1)), e.Kind, e.Name)
	}
	return []byte(b.String())
}
