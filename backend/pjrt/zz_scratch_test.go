//go:build cgo

package pjrt_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func TestScratchFiles(t *testing.T) {
	b, err := backend.Open("xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Split(os.Getenv("SCRATCH_FILES"), ",") {
		r := native.RunFileOn(context.Background(), confDir+"/"+f, b, native.RunOptions{Timeout: time.Minute})
		if r.Err != nil {
			t.Logf("%s: %v", f, r.Err)
		}
		for _, fn := range r.Funcs {
			if fn.Err != nil {
				msg := fn.Err.Error()
				if len(msg) > 700 {
					msg = msg[:700]
				}
				t.Logf("%s %s: %s", f, fn.Name, msg)
			}
		}
	}
}

func TestScratchCompare(t *testing.T) {
	b, _ := backend.Open("xla-cpu")
	src, _ := os.ReadFile(os.Getenv("SCRATCH_MLIR"))
	mods, err := stablehlo.Parse("x", src)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e1, err := b.Compile(ctx, mods[0], backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o1, err := e1.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := (&native.Backend{}).Compile(ctx, mods[0], backend.Options{})
	o2, err := e2.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range o1 {
		for j := 0; j < o1[i].Len() && j < 8; j++ {
			t.Logf("out %d [%d]: xla %v native %v", i, j, o1[i].Float64(j), o2[i].Float64(j))
		}
	}
}
