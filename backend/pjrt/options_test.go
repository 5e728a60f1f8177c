package pjrt

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseOptions(t *testing.T) {
	got, err := ParseOptions("cuda", `cuda:memory_fraction=0.5; preallocate=false;tpu:x=1; n=3; ids=[1, 2,3]; name="7"; allocator=bfc`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"memory_fraction": float32(0.5), "preallocate": false, "n": int64(3), "ids": []int64{1, 2, 3}, "name": "7", "allocator": "bfc"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	if s := FormatOptions(want); s != "allocator=bfc;ids=[1 2 3];memory_fraction=0.5;n=3;name=7;preallocate=false" {
		t.Errorf("FormatOptions: %q", s)
	}
	for _, bad := range []string{"novalue", "=3", "ids=[1,x]"} {
		if _, err := ParseOptions("cuda", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := SetClientOptions("k", map[string]any{"x": 3}); err == nil || !strings.Contains(err.Error(), "int is not a PJRT named value type") {
		t.Errorf("int option: %v", err)
	}
}
