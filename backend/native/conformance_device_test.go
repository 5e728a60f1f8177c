package native

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
)

// The device path (checks rewritten into results and run on the host)
// must agree with the interpreter's own run of the same files. The native
// backend stands in for the device here.
func TestRunFileOnAgreesWithInterpreter(t *testing.T) {
	files := suiteFiles(t)
	b, err := backend.Open("cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := RunOptions{Timeout: time.Minute}
	compared, unsupported := 0, 0
	for i, path := range files {
		if i%sampleDevice != 0 {
			continue
		}
		want := RunFile(ctx, path, opts)
		got := RunFileOn(ctx, path, b, opts)
		if got.Err != nil {
			t.Errorf("%s: %v", path, got.Err)
			continue
		}
		for j, fr := range got.Funcs {
			if errors.Is(fr.Err, backend.ErrNotImplemented) {
				unsupported++
				continue
			}
			if j >= len(want.Funcs) || want.Funcs[j].CompiledOnly {
				continue
			}
			compared++
			if (fr.Err == nil) != (want.Funcs[j].Err == nil) {
				t.Errorf("%s %s: device path %v, interpreter %v", path, fr.Name, fr.Err, want.Funcs[j].Err)
			}
		}
	}
	t.Logf("compared %d test functions, %d not runnable on a device", compared, unsupported)
	if compared == 0 {
		t.Fatal("nothing compared")
	}
}

// sampleDevice picks every n-th corpus file (1 runs them all: about 10 s).
var sampleDevice = 13
