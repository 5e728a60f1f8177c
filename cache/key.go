// Package cache is torchtpu's compilation cache: an in-memory LRU of
// compiled executables in front of an on-disk store of serialized ones.
//
// Keys are content: the SHA-256 of the canonical StableHLO text, the
// backend name and version, and the compile options. Disk entries carry a
// checksum of their payload, so a corrupt or truncated entry is detected,
// reported and recompiled, never trusted. Writers use a temporary file and
// an atomic rename, and eviction holds an exclusive lock on the folder, so
// several processes can share one cache directory.
package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FormatVersion is part of every key: bump it when the meaning of a
// cached payload changes.
const FormatVersion = "torchtpu-cache-1"

// Key derives the cache key of a compilation.
func Key(moduleText, backendName, backendVersion string, options map[string]string) string {
	h := sha256.New()
	write := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	write(FormatVersion)
	write(backendName)
	write(backendVersion)
	names := make([]string, 0, len(options))
	for k := range options {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		write(k + "=" + options[k])
	}
	write(moduleText)
	return hex.EncodeToString(h.Sum(nil))
}

// DefaultDir is the cache folder used when none is given:
// $TORCHTPU_CACHE_DIR, else <user cache dir>/torchtpu.
func DefaultDir() string {
	if d := os.Getenv("TORCHTPU_CACHE_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "torchtpu")
	}
	return filepath.Join(os.TempDir(), "torchtpu-cache")
}

func validKey(k string) bool {
	if len(k) != 64 {
		return false
	}
	return strings.Trim(k, "0123456789abcdef") == ""
}
