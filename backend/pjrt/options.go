package pjrt

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Client options are PJRT_Client_Create's named values (plugin-specific:
// e.g. the CUDA plugin's "platform_name", "allocator", "memory_fraction",
// "preallocate"). They are fixed when a plugin's client is created, which
// happens once per process, so they must be set before the first use of
// the device kind: with SetClientOptions, or with the environment
// variable TORCHTPU_PJRT_OPTIONS, ';'-separated KEY=VALUE entries, each
// optionally scoped to one kind as KIND:KEY=VALUE, e.g.
//
//	TORCHTPU_PJRT_OPTIONS='cuda:memory_fraction=0.5;cuda:preallocate=false'
//
// SetClientOptions wins over the environment for the keys it sets.

// OptionsEnv is the environment variable read for client options.
const OptionsEnv = "TORCHTPU_PJRT_OPTIONS"

var (
	optionsMu  sync.Mutex
	setOptions = map[string]map[string]any{} // by kind
	created    = map[string]bool{}           // kinds whose client exists
)

// SetClientOptions sets the options used when kind's client is created.
// It fails once the client exists.
func SetClientOptions(kind string, opts map[string]any) error {
	optionsMu.Lock()
	defer optionsMu.Unlock()
	if created[kind] {
		return fmt.Errorf("pjrt %s: the client exists already; client options must be set before the device is first used", kind)
	}
	m := map[string]any{}
	for k, v := range opts {
		switch v.(type) {
		case string, int64, []int64, float32, bool:
		default:
			return fmt.Errorf("pjrt %s: client option %s: %T is not a PJRT named value type (string, int64, []int64, float32, bool)", kind, k, v)
		}
		m[k] = v
	}
	setOptions[kind] = m
	return nil
}

// clientOptions returns the options for kind's client (environment, then
// SetClientOptions) and records that the client is being created.
func clientOptions(kind string) (map[string]any, error) {
	opts, err := ParseOptions(kind, os.Getenv(OptionsEnv))
	if err != nil {
		return nil, fmt.Errorf("$%s: %w", OptionsEnv, err)
	}
	optionsMu.Lock()
	defer optionsMu.Unlock()
	for k, v := range setOptions[kind] {
		opts[k] = v
	}
	return opts, nil
}

func markCreated(kind string) {
	optionsMu.Lock()
	defer optionsMu.Unlock()
	created[kind] = true
}

// ParseOptions reads the entries of spec (the TORCHTPU_PJRT_OPTIONS
// syntax) that apply to kind. A value is an int64 ("3"), a bool ("true",
// "false"), a float32 ("0.5"), an int64 list ("[1,2]") or else a string;
// quote it ('"3"') to force a string.
func ParseOptions(kind, spec string) (map[string]any, error) {
	out := map[string]any{}
	for _, e := range strings.Split(spec, ";") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		key, val, ok := strings.Cut(e, "=")
		if !ok || strings.TrimSpace(key) == "" {
			return nil, fmt.Errorf("option %q is not KEY=VALUE or KIND:KEY=VALUE", e)
		}
		key = strings.TrimSpace(key)
		if scope, k, scoped := strings.Cut(key, ":"); scoped {
			if scope != kind {
				continue
			}
			key = k
		}
		v, err := parseValue(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("option %s: %w", key, err)
		}
		out[key] = v
	}
	return out, nil
}

func parseValue(s string) (any, error) {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1], nil
	}
	if s == "true" || s == "false" {
		return s == "true", nil
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	if f, err := strconv.ParseFloat(s, 32); err == nil {
		return float32(f), nil
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		var list []int64
		for _, p := range strings.Split(s[1:len(s)-1], ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			i, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("list element %q is not an int64", p)
			}
			list = append(list, i)
		}
		return list, nil
	}
	return s, nil
}

// FormatOptions prints options sorted by key, for messages.
func FormatOptions(opts map[string]any) string {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, opts[k]))
	}
	return strings.Join(parts, ";")
}
