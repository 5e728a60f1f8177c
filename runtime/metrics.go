package runtime

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"
)

// Metrics counts what a program's runs did. Program.Metrics returns it;
// WriteJSON is what `--metrics FILE` writes.
type Metrics struct {
	mu sync.Mutex
	// Compiles counts backend compilations (modules found in no cache).
	Compiles  int     `json:"compiles"`
	CompileMS float64 `json:"compile_ms"`
	// CacheHits counts executables found in a cache: memory, disk (for the
	// native backend a load from text, see compile_cache.go) or a whole
	// per-signature plan (no lowering at all). CacheMisses counts compiles.
	CacheHits   int            `json:"cache_hits"`
	CacheMisses int            `json:"cache_misses"`
	HitsBy      map[string]int `json:"hits_by"`
	Corrupt     int            `json:"corrupt_entries"`
	// Fallbacks counts host-run ops by name; FallbackBytes the bytes they
	// moved to and from the host.
	Fallbacks     map[string]int   `json:"fallbacks"`
	FallbackBytes map[string]int64 `json:"fallback_bytes"`
	// Recompiles lists the calls whose shapes needed a new specialisation.
	Recompiles []Recompile `json:"recompiles"`
	// Runs counts Program.Run calls; RunMS their wall time.
	Runs  int     `json:"runs"`
	RunMS float64 `json:"run_ms"`
	// H2DBytes and D2HBytes count the bytes copied host → device and
	// device → host by all runs; LastH2DBytes and LastD2HBytes by the last
	// one (0 on the native backend, whose buffers are host memory).
	H2DBytes     int64 `json:"h2d_bytes"`
	D2HBytes     int64 `json:"d2h_bytes"`
	LastH2DBytes int64 `json:"last_run_h2d_bytes"`
	LastD2HBytes int64 `json:"last_run_d2h_bytes"`
	// Segments: execution per compiled segment, by order in the run.
	Segments []*SegmentMetrics `json:"segments"`
	// Bucketing says whether padding to buckets is used, and why not.
	Bucketing *BucketReport `json:"bucketing,omitempty"`
	// DebugChecks are the --debug-sync findings (one line per segment run).
	DebugChecks []string `json:"debug_checks,omitempty"`
}

// SegmentMetrics is one segment position of a program.
type SegmentMetrics struct {
	Index  int     `json:"index"`
	Key    string  `json:"key"` // cache key prefix of the last module run here
	Runs   int     `json:"runs"`
	ExecMS float64 `json:"exec_ms"`
}

// Recompile is one specialisation for new input shapes.
type Recompile struct {
	Call   int    `json:"call"`
	Reason string `json:"reason"`
	Input  int    `json:"input"` // -1 for the first call
	Name   string `json:"name,omitempty"`
	Dim    int    `json:"dim"`
	Old    int64  `json:"old"`
	New    int64  `json:"new"`
}

func newMetrics() *Metrics {
	return &Metrics{HitsBy: map[string]int{}, Fallbacks: map[string]int{}, FallbackBytes: map[string]int64{},
		Recompiles: []Recompile{}, Segments: []*SegmentMetrics{}}
}

func (m *Metrics) hit(where string) {
	m.mu.Lock()
	m.CacheHits++
	m.HitsBy[where]++
	m.mu.Unlock()
}

func (m *Metrics) miss() {
	m.mu.Lock()
	m.CacheMisses++
	m.mu.Unlock()
}

func (m *Metrics) corrupt() {
	m.mu.Lock()
	m.Corrupt++
	m.mu.Unlock()
}

func (m *Metrics) compiled(d time.Duration) {
	m.mu.Lock()
	m.Compiles++
	m.CompileMS += ms(d)
	m.mu.Unlock()
}

func (m *Metrics) fallback(op string, bytes int64) {
	m.mu.Lock()
	m.Fallbacks[op]++
	m.FallbackBytes[op] += bytes
	m.mu.Unlock()
}

func (m *Metrics) recompile(r Recompile) {
	m.mu.Lock()
	m.Recompiles = append(m.Recompiles, r)
	m.mu.Unlock()
}

func (m *Metrics) ran(d time.Duration) {
	m.mu.Lock()
	m.Runs++
	m.RunMS += ms(d)
	m.mu.Unlock()
}

// moved accounts bytes copied host → device and device → host.
func (m *Metrics) moved(h2d, d2h int64) {
	m.mu.Lock()
	m.H2DBytes += h2d
	m.D2HBytes += d2h
	m.mu.Unlock()
}

// runMoved accounts a run's transfers and makes them the last run's.
func (m *Metrics) runMoved(h2d, d2h int64) {
	m.mu.Lock()
	m.H2DBytes += h2d
	m.D2HBytes += d2h
	m.LastH2DBytes, m.LastD2HBytes = h2d, d2h
	m.mu.Unlock()
}

func (m *Metrics) executed(index int, key string, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(m.Segments) <= index {
		m.Segments = append(m.Segments, &SegmentMetrics{Index: len(m.Segments)})
	}
	s := m.Segments[index]
	s.Key = short(key)
	s.Runs++
	s.ExecMS += ms(d)
}

// execTime adds an asynchronous execution's time, known once its results
// are ready, to a segment whose run executed already counted.
func (m *Metrics) execTime(index int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if index < len(m.Segments) {
		m.Segments[index].ExecMS += ms(d)
	}
}

func (m *Metrics) debug(line string) {
	m.mu.Lock()
	m.DebugChecks = append(m.DebugChecks, line)
	m.mu.Unlock()
}

// Snapshot returns a copy safe to read while runs go on.
func (m *Metrics) Snapshot() *Metrics {
	m.mu.Lock()
	b, _ := json.Marshal(m)
	m.mu.Unlock()
	c := newMetrics()
	_ = json.Unmarshal(b, c)
	return c
}

// WriteJSON writes the metrics to path.
func (m *Metrics) WriteJSON(path string) error {
	m.mu.Lock()
	b, err := json.MarshalIndent(m, "", "  ")
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// Summary is one line for humans: compiles, cache hits, fallbacks.
func (m *Metrics) Summary() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := fmt.Sprintf("compiles: %d (%.0f ms), cache hits: %d, misses: %d, recompiles: %d",
		m.Compiles, m.CompileMS, m.CacheHits, m.CacheMisses, len(m.Recompiles))
	if len(m.Fallbacks) > 0 {
		ops := make([]string, 0, len(m.Fallbacks))
		for op := range m.Fallbacks {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		s += ", fallbacks:"
		for _, op := range ops {
			s += fmt.Sprintf(" %s ×%d (%d B)", op, m.Fallbacks[op], m.FallbackBytes[op])
		}
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
