//go:build !cgo

package pjrt

import (
	"errors"
	"fmt"

	"github.com/torchtpu/torchtpu/backend"
)

// CanLoad reports whether this build can load plugins (it has cgo).
const CanLoad = false

// APIInfo is what a plugin's PJRT_Api table says about itself.
type APIInfo struct {
	StructSize   uint64
	Major, Minor int
}

var errNoCgo = errors.New("this torchtpu was built without cgo (CGO_ENABLED=0): PJRT plugins cannot be loaded; rebuild with cgo for tpu/cuda/xla-cpu")

// Inspect cannot open plugins without cgo.
func Inspect(path string) (APIInfo, error) {
	return APIInfo{}, fmt.Errorf("pjrt plugin %s: %w", path, errNoCgo)
}

func open(kind, path string, ordinal int) (backend.Backend, error) {
	return nil, fmt.Errorf("pjrt %s: %w", kind, errNoCgo)
}

// LiveBuffers returns 0: without cgo no plugin is loaded.
func LiveBuffers() int64 { return 0 }
