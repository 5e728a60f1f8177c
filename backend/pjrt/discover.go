// Package pjrt runs StableHLO programs on PJRT plugins: libtpu (TPU), the
// XLA CUDA plugin (GPU) and the XLA CPU plugin, through the PJRT C API.
//
// Discovery (this file) is pure Go. Loading a plugin needs cgo; a build
// with CGO_ENABLED=0 still discovers plugins and explains that it cannot
// load them. This package checks a plugin before using it (it is a real
// PJRT plugin, its API version is one we speak, the entry points we call
// are present), so that a bad library gives an error, never a crash.
//
// Each plugin gets one client per process (libtpu allows no more), made
// with the options of SetClientOptions / TORCHTPU_PJRT_OPTIONS and shared
// by every program on its devices; Open returns one Backend per device.
//
// The binding github.com/gomlx/gopjrt (v0.10.0) initializes plugins,
// creates the client, lists devices and compiles. The run path is this
// package's own C calls (capi_cgo.go), because the binding executes
// synchronously, transfers synchronously, has no serialization, and leaks
// outputs when an execution's completion event fails: inputs are copied to
// the device without waiting, the execution is enqueued and completes
// through PJRT_Event_OnReady, arguments the program marks
// (tf.aliasing_output, jax.buffer_donor) are donated, outputs are read
// back, and executables serialize for the disk compile cache. Device
// buffers (Buffer, buffer_cgo.go) let programs keep values on the device:
// Backend.Upload, executable.RunBuffers, results ready through the
// execution's event, released explicitly or by the collector once no run
// reads them. Executables of several replicas or partitions run on that
// many devices (multi_device_cgo.go). The C
// handles of the binding's client, devices and executables are read from
// its unexported fields (binding_cgo.go, tested against v0.10.0).
package pjrt

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Kinds are the device kinds served by PJRT plugins.
var Kinds = []string{"tpu", "cuda", "xla-cpu"}

// Candidate is a plugin file found on this machine.
type Candidate struct {
	Kind string // "tpu", "cuda", "xla-cpu", or "" when the name does not tell
	Path string
	From string // where it was found: "--plugin", "PJRT_PLUGIN_LIBRARY_PATH", "libtpu", "jax"...
}

// Search lists plugin candidates: explicit paths first, then the
// PJRT_PLUGIN_LIBRARY_PATH entries (files or folders, ':'-separated),
// TPU_LIBRARY_PATH, the folders of scripts/install-pjrt.sh (PluginDir),
// then the places libtpu, jax's CUDA plugin and the XLA CPU plugin usually
// install. Missing paths are skipped; duplicates are removed.
func Search(explicit []string) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	add := func(path, from string) {
		abs, err := filepath.Abs(path)
		if err != nil || seen[abs] {
			return
		}
		if st, err := os.Stat(abs); err != nil || st.IsDir() {
			return
		}
		seen[abs] = true
		out = append(out, Candidate{Kind: KindOf(abs), Path: abs, From: from})
	}
	for _, p := range explicit {
		add(p, "--plugin")
	}
	for _, p := range filepath.SplitList(os.Getenv("PJRT_PLUGIN_LIBRARY_PATH")) {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			for _, f := range globAll(filepath.Join(p, "*.so")) {
				add(f, "PJRT_PLUGIN_LIBRARY_PATH")
			}
			continue
		}
		add(p, "PJRT_PLUGIN_LIBRARY_PATH")
	}
	if p := os.Getenv("TPU_LIBRARY_PATH"); p != "" {
		add(p, "TPU_LIBRARY_PATH")
	}
	// What scripts/install-pjrt.sh installed: one folder per kind.
	if dir := PluginDir(); dir != "" {
		for _, kind := range Kinds {
			for _, f := range globAll(filepath.Join(dir, kind, "*.so")) {
				if abs, err := filepath.Abs(f); err == nil && !seen[abs] {
					add(f, "install-pjrt")
					out[len(out)-1].Kind = kind
				}
			}
		}
	}
	for _, sp := range sitePackages() {
		for _, f := range globAll(filepath.Join(sp, "libtpu", "libtpu*.so")) {
			add(f, "libtpu")
		}
		for _, f := range globAll(filepath.Join(sp, "jax_plugins", "xla_cuda*", "xla_cuda_plugin.so")) {
			add(f, "jax")
		}
		for _, f := range globAll(filepath.Join(sp, "jax_plugins", "*", "pjrt_c_api_*_plugin.so")) {
			add(f, "jax")
		}
	}
	home, _ := os.UserHomeDir()
	for _, dir := range []string{filepath.Join(home, ".local/lib/gomlx/pjrt"), "/usr/local/lib/gomlx/pjrt", "/usr/lib/libtpu", "/usr/local/lib"} {
		for _, f := range globAll(filepath.Join(dir, "pjrt_c_api_*_plugin.so")) {
			add(f, dir)
		}
		for _, f := range globAll(filepath.Join(dir, "libtpu*.so")) {
			add(f, dir)
		}
	}
	return out
}

// PluginDirEnv names the folder scripts/install-pjrt.sh installs plugins
// into, one subfolder per kind (xla-cpu, tpu, cuda).
const PluginDirEnv = "TORCHTPU_PJRT_DIR"

// PluginDir is $TORCHTPU_PJRT_DIR, or else torchtpu/pjrt in the user's
// cache folder (~/.cache/torchtpu/pjrt).
func PluginDir() string {
	if d := os.Getenv(PluginDirEnv); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "torchtpu", "pjrt")
	}
	return ""
}

// InstalledVersion names the package a plugin came from ("libtpu==0.0.51"):
// from the VERSION file install-pjrt.sh writes beside it, or from the
// dist-info folder of a pip-installed package; "" when neither says.
func InstalledVersion(pluginPath string) string {
	dir := filepath.Dir(pluginPath)
	if b, err := os.ReadFile(filepath.Join(dir, "VERSION")); err == nil {
		v, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		return v
	}
	pkg := strings.ReplaceAll(filepath.Base(dir), "-", "_")
	for _, d := range globAll(filepath.Join(filepath.Dir(dir), pkg+"-*.dist-info")) {
		name := strings.TrimSuffix(filepath.Base(d), ".dist-info")
		if p, v, ok := strings.Cut(name, "-"); ok {
			return p + "==" + v
		}
	}
	return ""
}

// KindOf guesses the device kind from a plugin's file name.
func KindOf(path string) string {
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.Contains(base, "tpu"):
		return "tpu"
	case strings.Contains(base, "cuda") || strings.Contains(base, "gpu"):
		return "cuda"
	case strings.Contains(base, "cpu"):
		return "xla-cpu"
	}
	return ""
}

// sitePackages lists Python package folders that may hold libtpu or jax.
func sitePackages() []string {
	var roots []string
	if v := os.Getenv("VIRTUAL_ENV"); v != "" {
		roots = append(roots, filepath.Join(v, "lib", "python3*", "site-packages"))
	}
	home, _ := os.UserHomeDir()
	roots = append(roots,
		filepath.Join(home, ".local", "lib", "python3*", "site-packages"),
		"/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
		"/usr/lib/python3/dist-packages", "/usr/lib/python3*/site-packages",
		"/opt/conda/lib/python3*/site-packages", "/opt/*/.venv/lib/python3*/site-packages",
		filepath.Join(home, ".pyenv", "versions", "*", "lib", "python3*", "site-packages"),
	)
	var out []string
	for _, r := range roots {
		out = append(out, globAll(r)...)
	}
	return out
}

func globAll(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	sort.Strings(m)
	return m
}

// ForKind returns the first candidate of a kind, or nil.
func ForKind(cands []Candidate, kind string) *Candidate {
	for i := range cands {
		if cands[i].Kind == kind {
			return &cands[i]
		}
	}
	return nil
}
