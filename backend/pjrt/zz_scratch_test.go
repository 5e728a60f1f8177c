//go:build cgo

package pjrt_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
)

func TestScratchSampled(t *testing.T) {
	b, err := backend.Open("xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Split(os.Getenv("SCRATCH_FILES"), ",") {
		t.Logf("%s: %v", f, runSampled(context.Background(), b, confDir+"/"+f))
	}
}
