//go:build cgo

package pjrt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
)

// buildFake compiles testdata/fake_plugin.c into a fresh shared library.
func buildFake(t *testing.T, name string) string {
	t.Helper()
	return pjrttest.BuildFake(t, name)
}

func TestFakePluginLoadsAndReportsClientError(t *testing.T) {
	t.Setenv("FAKE_PJRT_DEVICES", "0")
	path := buildFake(t, "pjrt_c_api_cpu_plugin.so")
	info, err := Inspect(path)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	if info.Major != 0 || info.Minor != 70 {
		t.Errorf("version = %d.%d, want 0.70", info.Major, info.Minor)
	}
	p, _, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if maj, min := p.Version(); maj != 0 || min != 70 {
		t.Errorf("binding sees version %d.%d", maj, min)
	}
	_, err = Open("xla-cpu", path, 0)
	if err == nil || !strings.Contains(err.Error(), "fake plugin has no devices") {
		t.Fatalf("Open: want the plugin's own error, got %v", err)
	}
}

func TestFakePluginVersionChecks(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"FAKE_PJRT_MAJOR": "1"}, "PJRT C API version 1.70 is not supported"},
		{map[string]string{"FAKE_PJRT_MINOR": "3"}, "PJRT C API version 0.3 is too old"},
		{map[string]string{"FAKE_PJRT_TABLE_BYTES": "64"}, "PJRT_Api table is 64 bytes"},
		{map[string]string{"FAKE_PJRT_NULL_ENTRY": "20"}, "entry point PJRT_Client_Compile is missing"},
		{map[string]string{"FAKE_PJRT_NULL_ENTRY": "96"}, "entry point PJRT_Executable_GetCompiledMemoryStats is missing"},
		{map[string]string{"FAKE_PJRT_TABLE_BYTES": "700"}, "too small to hold PJRT_Executable_GetCompiledMemoryStats"},
	}
	for i, c := range cases {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		path := buildFake(t, "fake"+string(rune('a'+i))+".so")
		_, err := Inspect(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want error containing %q", c.env, err, c.want)
		}
		if _, _, err := Load(path); err == nil {
			t.Errorf("%v: Load accepted a bad plugin", c.env)
		}
		for k := range c.env {
			os.Unsetenv(k)
		}
	}
}

func TestNotAPlugin(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "pjrt_c_api_cuda_plugin.so")
	if err := os.WriteFile(text, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Inspect(text); err == nil || !strings.Contains(err.Error(), "not a loadable shared library") {
		t.Errorf("text file: got %v", err)
	}
	if _, err := Inspect(filepath.Join(dir, "missing.so")); err == nil {
		t.Error("missing file accepted")
	}
	// A real shared library without GetPjrtApi.
	libm := ""
	for _, p := range []string{"/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6"} {
		if _, err := os.Stat(p); err == nil {
			libm = p
			break
		}
	}
	if libm != "" {
		if _, err := Inspect(libm); err == nil || !strings.Contains(err.Error(), "no GetPjrtApi symbol") {
			t.Errorf("libm: got %v", err)
		}
	}
}

func TestDiscoveryThroughEnv(t *testing.T) {
	path := buildFake(t, "pjrt_c_api_cpu_plugin.so")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", filepath.Dir(path))
	c := ForKind(Search(nil), "xla-cpu")
	if c == nil || c.Path != path {
		t.Fatalf("Search did not find %s: %+v", path, Search(nil))
	}
	var found bool
	for _, st := range Probe(false) {
		if st.Kind == "xla-cpu" {
			found = true
			if st.Err != nil || st.Version != "0.70" {
				t.Errorf("Probe xla-cpu: %+v", st)
			}
		} else if st.Err == nil && st.Path == "" {
			t.Errorf("Probe %s: no plugin and no reason", st.Kind)
		}
	}
	if !found {
		t.Error("Probe lists no xla-cpu entry")
	}
}

func TestStableHLOVersionCheck(t *testing.T) {
	t.Setenv("FAKE_PJRT_STABLEHLO", "0.19.3")
	old := buildFake(t, "pjrt_c_api_cpu_plugin_old.so")
	_, err := Open("xla-cpu", old, 0)
	if err == nil || !strings.Contains(err.Error(), "StableHLO 0.19.3 is older than 1.0.0") {
		t.Errorf("old StableHLO: got %v", err)
	}
	t.Setenv("FAKE_PJRT_STABLEHLO", "1.9.2")
	cur := buildFake(t, "pjrt_c_api_cpu_plugin_new.so")
	p, _, err := Load(cur)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := checkStableHLO(p.Attributes()); err != nil || v != "1.9.2" {
		t.Errorf("current StableHLO: %q, %v", v, err)
	}
	// Past the version check the fake (told to have no device) refuses
	// to make a client.
	t.Setenv("FAKE_PJRT_DEVICES", "0")
	if _, err := Open("xla-cpu", cur, 0); err == nil || !strings.Contains(err.Error(), "fake plugin has no devices") {
		t.Errorf("Open: %v", err)
	}
}
