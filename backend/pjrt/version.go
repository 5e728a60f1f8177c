package pjrt

import "fmt"

// MinStableHLO is the oldest StableHLO version whose text parser accepts
// what torchtpu prints: generic op syntax with array<i64: ...> attributes
// and #stablehlo.gather/scatter/dot/conv attributes without the batching
// fields when they are empty.
var MinStableHLO = [3]int64{1, 0, 0}

// stablehloVersion reads the "stablehlo_current_version" plugin attribute
// (an int64 list, major.minor.patch); ok is false when the plugin does not
// report one.
func stablehloVersion(attrs map[string]any) (v [3]int64, ok bool) {
	raw, found := attrs["stablehlo_current_version"]
	if !found {
		return v, false
	}
	list, isList := raw.([]int64)
	if !isList || len(list) == 0 {
		return v, false
	}
	copy(v[:], list)
	return v, true
}

func versionLess(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// checkStableHLO refuses a plugin whose StableHLO is too old for the text
// torchtpu emits.
func checkStableHLO(attrs map[string]any) (string, error) {
	v, ok := stablehloVersion(attrs)
	if !ok {
		return "unknown", nil
	}
	s := fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	if versionLess(v, MinStableHLO) {
		return s, fmt.Errorf("the plugin's StableHLO %s is older than %d.%d.%d, the oldest whose text syntax torchtpu emits; use a newer plugin",
			s, MinStableHLO[0], MinStableHLO[1], MinStableHLO[2])
	}
	return s, nil
}
