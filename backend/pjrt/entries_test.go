package pjrt

import (
	"os"
	"regexp"
	"testing"
)

// The entry lists must match the PJRT_Api field order of the header the
// binding is built against (a copy is in include/, used by our own calls and the fake plugin).
func TestEntriesMatchHeader(t *testing.T) {
	src, err := os.ReadFile("include/pjrt_c_api.h")
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, m := range regexp.MustCompile(`_PJRT_API_STRUCT_FIELD\((PJRT_\w+)\)`).FindAllSubmatch(src, -1) {
		fields = append(fields, string(m[1]))
	}
	if len(fields) < len(apiEntries) {
		t.Fatalf("header has %d entries, fewer than the %d checked", len(fields), len(apiEntries))
	}
	for i, name := range apiEntries {
		if fields[i] != name {
			t.Errorf("entry %d: header has %s, apiEntries says %s", i, fields[i], name)
		}
	}
	for _, f := range apiFarEntries {
		if f.Index >= len(fields) || fields[f.Index] != f.Name {
			t.Errorf("%s is not entry %d of the header", f.Name, f.Index)
		}
	}
	if m := regexp.MustCompile(`#define PJRT_API_MINOR (\d+)`).FindSubmatch(src); m == nil || string(m[1]) != "81" || BindingAPIMinor != 81 {
		t.Errorf("header minor %q, BindingAPIMinor %d", m, BindingAPIMinor)
	}
}

func TestCheckAPIFarEntries(t *testing.T) {
	short := APIInfo{Major: 0, Minor: 50, StructSize: uint64(apiHeaderBytes + 8*len(apiEntries))}
	if err := checkAPI(short); err == nil {
		t.Error("a table without PJRT_Executable_GetCompiledMemoryStats was accepted")
	}
	full := APIInfo{Major: 0, Minor: 50, StructSize: uint64(apiHeaderBytes + 8*(apiFarEntries[0].Index+1))}
	if err := checkAPI(full); err != nil {
		t.Error(err)
	}
}
