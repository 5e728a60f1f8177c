package pjrt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/torchtpu/torchtpu/backend"
)

func init() {
	for _, kind := range Kinds {
		backend.RegisterIndexed(kind, func(ordinal int) (backend.Backend, error) {
			return openKind(kind, ordinal)
		})
	}
}

// AddPluginPaths makes explicit plugin files or folders (the CLI's
// --plugin flag) visible to discovery, ahead of everything else, through
// PJRT_PLUGIN_LIBRARY_PATH.
func AddPluginPaths(paths ...string) error {
	list := append([]string(nil), paths...)
	if old := os.Getenv("PJRT_PLUGIN_LIBRARY_PATH"); old != "" {
		list = append(list, old)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("--plugin %s: %w", p, err)
		}
	}
	return os.Setenv("PJRT_PLUGIN_LIBRARY_PATH", strings.Join(list, string(filepath.ListSeparator)))
}

// Status says what discovery found for one device kind.
type Status struct {
	Kind     string
	Path     string   // plugin file, "" when none was found
	Version  string   // PJRT C API version, "0.81", when the plugin could be inspected
	Package  string   // the package it came from, "xla-cpu-pjrt==0.0.1", when known
	Platform string   // the client's platform name and version, when a client was made
	Devices  []string // addressable devices, when a client could be made
	Err      error    // why the kind is unavailable
}

// Probe reports, for every kind, the plugin found and whether it works.
// With open set it creates a client to list devices (slow for real plugins).
func Probe(open bool) []Status {
	cands := Search(nil)
	var out []Status
	for _, kind := range Kinds {
		st := Status{Kind: kind}
		c := ForKind(cands, kind)
		if c == nil {
			st.Err = fmt.Errorf("no %s plugin found (%s)", kind, hint(kind))
			out = append(out, st)
			continue
		}
		st.Path = c.Path
		info, err := Inspect(c.Path)
		if err != nil {
			st.Err = err
			out = append(out, st)
			continue
		}
		st.Version = fmt.Sprintf("%d.%d", info.Major, info.Minor)
		st.Package = InstalledVersion(c.Path)
		if kind == "tpu" && TPUChips() == 0 {
			st.Err = noTPUChips(c.Path)
		} else if open {
			b, err := openKind(kind, 0)
			if err != nil {
				st.Err = err
			} else {
				if d, ok := b.(interface{ Devices() []string }); ok {
					st.Devices = d.Devices()
				}
				if p, ok := b.(interface{ Platform() string }); ok {
					st.Platform = p.Platform()
				}
			}
		}
		out = append(out, st)
	}
	// Files named explicitly whose kind is unknown are inspected too, so a
	// wrong path gets an answer rather than silence.
	for _, c := range cands {
		if c.Kind != "" {
			continue
		}
		st := Status{Kind: "?", Path: c.Path}
		info, err := Inspect(c.Path)
		if err != nil {
			st.Err = err
		} else {
			st.Version = fmt.Sprintf("%d.%d", info.Major, info.Minor)
			st.Err = fmt.Errorf("a PJRT plugin, but its file name does not say its kind (tpu, cuda or cpu): rename it or link it as pjrt_c_api_<kind>_plugin.so")
		}
		out = append(out, st)
	}
	return out
}

func hint(kind string) string {
	switch kind {
	case "tpu":
		return "scripts/install-pjrt.sh tpu, pip install libtpu, or set TPU_LIBRARY_PATH / PJRT_PLUGIN_LIBRARY_PATH"
	case "cuda":
		return "scripts/install-pjrt.sh cuda, or set PJRT_PLUGIN_LIBRARY_PATH to xla_cuda_plugin.so"
	}
	return "scripts/install-pjrt.sh xla-cpu, or set PJRT_PLUGIN_LIBRARY_PATH to pjrt_c_api_cpu_plugin.so"
}

func openKind(kind string, ordinal int) (backend.Backend, error) {
	c := ForKind(Search(nil), kind)
	if c == nil {
		return nil, fmt.Errorf("no %s plugin found (%s)", kind, hint(kind))
	}
	if kind == "tpu" && TPUChips() == 0 {
		return nil, noTPUChips(c.Path)
	}
	return open(kind, c.Path, ordinal)
}
