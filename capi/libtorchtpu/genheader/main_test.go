package main

import (
	"bytes"
	"os"
	"testing"
)

// TestHeaderUpToDate fails when torchtpu.h differs from what the
// generator writes from the library's source.
func TestHeaderUpToDate(t *testing.T) {
	want, err := Generate("..", "../../doc.go")
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../torchtpu.h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatal("capi/libtorchtpu/torchtpu.h is not up to date: run go generate ./capi/...")
	}
}
