package capi

import (
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/torchtpu/torchtpu/backend"
)

// Errorf is fmt.Errorf, for the C ABI package's messages.
func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// VersionJSON describes the build: ABI version, module version, Go
// version and VCS revision when the build recorded them.
func VersionJSON() ([]byte, error) {
	v := map[string]any{"abi": ABIVersion, "go": goruntime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v["module"] = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.time", "vcs.modified":
				v[s.Key] = s.Value
			}
		}
	}
	return json.Marshal(v)
}

// DeviceInfo is one device name and whether it opens.
type DeviceInfo struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Error     string `json:"error,omitempty"`
}

// DevicesJSON lists the registered devices and whether each opens here.
func DevicesJSON() ([]byte, error) {
	var out []DeviceInfo
	for _, n := range backend.Names() {
		d := DeviceInfo{Name: n}
		if _, err := backend.Open(n); err != nil {
			d.Error = err.Error()
		} else {
			d.Available = true
		}
		out = append(out, d)
	}
	return json.Marshal(out)
}
