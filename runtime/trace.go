package runtime

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// tracer records Chrome trace events ("X" complete events, microseconds),
// the format chrome://tracing and ui.perfetto.dev open.
type tracer struct {
	on     bool
	mu     sync.Mutex
	start  time.Time
	events []traceEvent
}

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	TS   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	PID  int            `json:"pid"`
	TID  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

func newTracer(on bool) *tracer { return &tracer{on: on, start: time.Now()} }

// span records one event: cat is lower, compile, execute, host or run.
func (t *tracer) span(name, cat string, start time.Time, d time.Duration, args map[string]any) {
	if t == nil || !t.on {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, traceEvent{
		Name: name, Cat: cat, Ph: "X", PID: 1, TID: 1, Args: args,
		TS:  float64(start.Sub(t.start).Nanoseconds()) / 1000,
		Dur: float64(d.Nanoseconds()) / 1000,
	})
}

// WriteTrace writes the recorded trace (Options.Trace) to path as JSON.
func (p *Program) WriteTrace(path string) error {
	t := p.state().trace
	t.mu.Lock()
	evs := append([]traceEvent{}, t.events...)
	t.mu.Unlock()
	b, err := json.Marshal(map[string]any{"traceEvents": evs, "displayTimeUnit": "ms"})
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// TraceSpan adds a span to the program's trace (Options.Trace; nothing
// without it), for layers below the runtime: the native backend's
// per-step profile (torchtpu bench --profile).
func (p *Program) TraceSpan(name, cat string, start time.Time, d time.Duration, args map[string]any) {
	p.state().trace.span(name, cat, start, d, args)
}
