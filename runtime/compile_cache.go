package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/cache"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The compile cache sits between lowering and the backend. Every segment
// is printed canonically and keyed by cache.Key (text + backend name and
// version + options). Lookup order: the process-wide memory LRU of
// executables, then the disk store (Options.CacheDir), then a compile
// whose result goes to both.
//
// What a disk entry holds, honestly:
//   - a backend implementing Serializer stores its serialized executable
//     and a Deserializer loads it: the PJRT backends (backend/pjrt) do,
//     through PJRT_Executable_Serialize / DeserializeAndLoad, when the
//     plugin implements them; when serializing fails the entry falls back
//     to text;
//   - otherwise the entry is the canonical module text. For the native
//     backend ("cpu") that is all its compile consumes: loading an entry
//     parses the text and rebuilds the execution plan (verification and
//     planning), which is counted as a load, not a compile. For any other
//     backend, loading text means compiling it, and is counted as a
//     compile.
//
// Lowering still runs before the key is known; the per-signature plan
// cache (cache.go) is what skips lowering on a repeated call.

// Serializer is implemented by executables that can be stored.
type Serializer interface {
	Serialize() ([]byte, error)
}

// Deserializer is implemented by backends that can load what their
// executables' Serialize produced.
type Deserializer interface {
	Deserialize(ctx context.Context, b []byte) (backend.Executable, error)
}

// Payload kinds: the first line of a disk entry.
const (
	payloadText       = "torchtpu-module-text\n"
	payloadSerialized = "torchtpu-serialized\n"
)

var (
	memMu    sync.Mutex
	memCache = cache.NewMemory(512)
	// instance numbers backends that hold device state (PJRT clients):
	// their executables are only valid on the client that built them.
	// backend/pjrt returns one backend value per device and process, so
	// all programs on a device share its executables.
	instances = map[backend.Backend]int{}
)

// memKey scopes a content key to a backend instance. The native backend
// is stateless, so every "cpu" instance shares executables.
func memKey(b backend.Backend, key string) string {
	if b.Name() == "cpu" {
		return key
	}
	memMu.Lock()
	defer memMu.Unlock()
	id, ok := instances[b]
	if !ok {
		id = len(instances) + 1
		instances[b] = id
	}
	return fmt.Sprintf("%s@%d", key, id)
}

// moduleText prints m canonically.
func moduleText(m *stablehlo.Module) (string, error) {
	var sb strings.Builder
	if err := stablehlo.Print(&sb, m); err != nil {
		return "", fmt.Errorf("print module: %w", err)
	}
	return sb.String(), nil
}

// compileCached returns an executable for m on b through the caches,
// recording what happened in st. label names the segment in messages.
func compileCached(ctx context.Context, st *rtState, b backend.Backend, m *stablehlo.Module, label string) (backend.Executable, string, error) {
	start := time.Now()
	text, err := moduleText(m)
	if err != nil {
		return nil, "", err
	}
	key := cache.Key(text, b.Name(), b.Version(), nil)
	st.trace.span("cache key "+label, "compile", start, time.Since(start), map[string]any{"key": short(key), "text_bytes": len(text)})
	if st.opts.NoCache {
		st.metrics.miss()
		exe, err := st.compile(ctx, b, m, label, key)
		return exe, key, err
	}
	mk := memKey(b, key)
	if v, ok := memCache.Get(mk); ok {
		st.metrics.hit("memory")
		return v.(backend.Executable), key, nil
	}
	if d := st.disk(); d != nil {
		exe, err := st.load(ctx, d, b, key, label)
		if err != nil {
			return nil, key, err
		}
		if exe != nil {
			memCache.Put(mk, exe)
			return exe, key, nil
		}
	}
	st.metrics.miss()
	exe, err := st.compile(ctx, b, m, label, key)
	if err != nil {
		return nil, key, err
	}
	memCache.Put(mk, exe)
	if d := st.disk(); d != nil {
		st.store(d, exe, key, text)
	}
	return exe, key, nil
}

// compile runs the backend compiler, with progress and accounting.
func (st *rtState) compile(ctx context.Context, b backend.Backend, m *stablehlo.Module, label, key string) (backend.Executable, error) {
	stop := st.progress(label)
	start := time.Now()
	exe, err := b.Compile(ctx, m, backend.Options{})
	stop()
	d := time.Since(start)
	st.trace.span("compile "+label, "compile", start, d, map[string]any{"key": short(key)})
	if err != nil {
		return nil, err
	}
	st.metrics.compiled(d)
	return exe, nil
}

// load reads a disk entry. It returns (nil, nil) when there is none or
// when the entry was corrupt (reported on the log and removed): the
// caller then compiles.
func (st *rtState) load(ctx context.Context, d *cache.Disk, b backend.Backend, key, label string) (backend.Executable, error) {
	payload, found, err := d.Get(key)
	if err != nil {
		if errors.Is(err, cache.ErrCorrupt) {
			st.metrics.corrupt()
			st.logf("torchtpu: warning: %v; recompiling %s\n", err, label)
			return nil, nil
		}
		st.logf("torchtpu: warning: %v; compiling %s without the disk cache\n", err, label)
		return nil, nil
	}
	if !found {
		return nil, nil
	}
	start := time.Now()
	kind, body, _ := bytes.Cut(payload, []byte("\n"))
	var exe backend.Executable
	switch string(kind) + "\n" {
	case payloadSerialized:
		if ds, ok := b.(Deserializer); ok {
			exe, err = ds.Deserialize(ctx, body)
		} else {
			err = fmt.Errorf("backend %s cannot load serialized executables", b.Name())
		}
	case payloadText:
		var m *stablehlo.Module
		if m, err = stablehlo.ParseModule(key, body); err == nil {
			exe, err = b.Compile(ctx, m, backend.Options{})
		}
	default:
		err = fmt.Errorf("unknown payload kind %q", kind)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		st.metrics.corrupt()
		st.logf("torchtpu: warning: cache entry %s: %v; recompiling %s\n", d.Path(key), err, label)
		return nil, nil
	}
	dur := time.Since(start)
	st.trace.span("load "+label, "compile", start, dur, map[string]any{"key": short(key)})
	if string(kind)+"\n" == payloadText && b.Name() != "cpu" {
		st.metrics.compiled(dur) // loading text on a compiling backend is a compile
	} else {
		st.metrics.hit("disk")
	}
	return exe, nil
}

// store writes a disk entry; failures are warnings (the run goes on).
func (st *rtState) store(d *cache.Disk, exe backend.Executable, key, text string) {
	payload := payloadText + text
	if s, ok := exe.(Serializer); ok {
		if blob, err := s.Serialize(); err == nil {
			payload = payloadSerialized + string(blob)
		}
	}
	if err := d.Put(key, []byte(payload)); err != nil {
		st.logf("torchtpu: warning: %v\n", err)
	}
}

func short(key string) string {
	if len(key) > 12 {
		return key[:12]
	}
	return key
}
