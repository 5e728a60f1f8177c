package main

import (
	"fmt"
	"io"
	"time"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/runtime"
)

// benchProfile is bench --profile's table: the native backend's time per
// kind of step and per step (fused groups, ops), per timed run.
type benchProfile struct {
	Runs int `json:"runs"`
	// StepsMS is the median time of all steps per run (each step's
	// median, summed); WallMS the median latency.
	StepsMS float64 `json:"steps_ms"`
	WallMS  float64 `json:"wall_ms"`
	// Thread use per run (means): the running thread's time in steps,
	// the part of it in steps with no parallel loop (the other threads
	// idle), the helper threads' time in the steps' loops, the time
	// between steps (MeanWallMS minus the steps), and the busy share of
	// Threads × MeanWallMS.
	Threads    int            `json:"threads"`
	MeanWallMS float64        `json:"mean_wall_ms"`
	InStepsMS  float64        `json:"in_steps_ms"`
	SerialMS   float64        `json:"serial_ms"`
	HelpersMS  float64        `json:"helpers_ms"`
	BetweenMS  float64        `json:"between_steps_ms"`
	Busy       float64        `json:"busy"`
	Kinds      []profileEntry `json:"kinds"`
	Steps      []profileEntry `json:"steps"`
}

type profileEntry struct {
	Kind   string  `json:"kind"`
	Name   string  `json:"name,omitempty"`
	MS     float64 `json:"ms_per_run"` // median
	MeanMS float64 `json:"mean_ms_per_run"`
	// SerialMS: the mean time in steps that ran no parallel loop;
	// HelpersMS: the helper threads' time in the steps' loops.
	SerialMS  float64 `json:"serial_ms_per_run"`
	HelpersMS float64 `json:"helpers_ms_per_run"`
	Share     float64 `json:"share"`
	Calls     float64 `json:"calls_per_run"`
}

// summarizeProfile turns p into the table, the top steps only.
func summarizeProfile(p *native.Profile, wallMS, meanWallMS float64, threads, top int) *benchProfile {
	runs := p.Runs()
	if runs == 0 {
		return &benchProfile{}
	}
	kinds := p.ByKind()
	var total time.Duration
	for _, k := range kinds {
		total += k.Median
	}
	conv := func(es []native.ProfileEntry) []profileEntry {
		out := make([]profileEntry, 0, len(es))
		for _, e := range es {
			share := 0.0
			if total > 0 {
				share = float64(e.Median) / float64(total)
			}
			out = append(out, profileEntry{Kind: e.Kind, Name: e.Name, MS: ms(e.Median) / float64(runs),
				MeanMS: ms(e.Total) / float64(runs), Share: share, Calls: float64(e.Count) / float64(runs),
				SerialMS: ms(e.Serial) / float64(runs), HelpersMS: ms(e.Helpers) / float64(runs)})
		}
		return out
	}
	steps := p.BySteps("")
	if len(steps) > top {
		steps = steps[:top]
	}
	bp := &benchProfile{Runs: runs, StepsMS: ms(total) / float64(runs), WallMS: wallMS, Kinds: conv(kinds), Steps: conv(steps),
		Threads: threads, MeanWallMS: meanWallMS}
	for _, k := range bp.Kinds {
		bp.InStepsMS += k.MeanMS
		bp.SerialMS += k.SerialMS
		bp.HelpersMS += k.HelpersMS
	}
	bp.BetweenMS = max(0, meanWallMS-bp.InStepsMS)
	if meanWallMS > 0 && threads > 0 {
		bp.Busy = (bp.InStepsMS + bp.HelpersMS) / (meanWallMS * float64(threads))
	}
	return bp
}

// traceProfile puts the profile's spans into the program's trace.
func traceProfile(prog *runtime.Program, p *native.Profile) {
	for _, s := range p.SpanList() {
		prog.TraceSpan(s.Name, "native", s.Start, s.Dur, map[string]any{"step": s.Desc})
	}
}

func printProfile(w io.Writer, bp *benchProfile) {
	if bp.Runs == 0 {
		fmt.Fprintln(w, "profile     no native steps recorded (the device is not the native cpu backend?)")
		return
	}
	fmt.Fprintf(w, "profile     %d runs; steps take %.3f ms per run (medians) of a median %.3f ms run (%.0f%%; the rest: dispatch between steps and segments)\n",
		bp.Runs, bp.StepsMS, bp.WallMS, 100*bp.StepsMS/max(bp.WallMS, 1e-9))
	fmt.Fprintf(w, "threads     %d: busy %.0f%% of %d × %.3f ms (mean run): the running thread %.3f ms in steps (%.3f ms of them in steps with no parallel loop, the other threads idle), helpers %.3f ms; %.3f ms between steps\n",
		bp.Threads, 100*bp.Busy, bp.Threads, bp.MeanWallMS, bp.InStepsMS, bp.SerialMS, bp.HelpersMS, bp.BetweenMS)
	fmt.Fprintf(w, "  %-24s %10s %7s %10s %10s %10s %10s\n", "kind", "ms/run", "share", "mean ms", "serial ms", "helpers ms", "calls/run")
	for _, e := range bp.Kinds {
		fmt.Fprintf(w, "  %-24s %10.3f %6.1f%% %10.3f %10.3f %10.3f %10.1f\n", e.Kind, e.MS, 100*e.Share, e.MeanMS, e.SerialMS, e.HelpersMS, e.Calls)
	}
	fmt.Fprintf(w, "  top steps (ms/run: the median run's; mean and serial: over all runs; serial: with no parallel loop):\n")
	fmt.Fprintf(w, "  %10s %7s %10s %10s %6s  %s\n", "ms/run", "share", "mean ms", "serial ms", "calls", "step")
	for _, e := range bp.Steps {
		fmt.Fprintf(w, "  %10.3f %6.1f%% %10.3f %10.3f %6.1f  %s: %s\n", e.MS, 100*e.Share, e.MeanMS, e.SerialMS, e.Calls, e.Kind, e.Name)
	}
}
