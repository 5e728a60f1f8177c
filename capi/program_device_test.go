package capi

import (
	"context"
	"strings"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/eager"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
)

// A program on the eager device's buffers (tt_program_run_device): the mlp
// fixture's inputs uploaded to buffers, run in place, its outputs new
// buffers read back and compared with PyTorch's.
func TestRunOnDeviceBuffers(t *testing.T) {
	data, io := fixture(t, "mlp")
	h, err := LoadHandle(data, []byte(`{"cache_dir": "-", "name": "forward_mlp"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer Free(h)
	d, err := EagerDevice()
	if err != nil {
		t.Fatal(err)
	}
	if b := d.Backend(); b != "cpu" {
		t.Skipf("the eager device runs on %s", b)
	}
	var words []int64
	for _, in := range io.Inputs() {
		code, _ := in.DType.ScalarType()
		buf, err := d.NewBuffer(int64(len(in.Data)))
		if err != nil {
			t.Fatal(err)
		}
		defer Free(Handle(buf))
		item := []int64{1, int64(buf), int64(code), int64(len(in.Shape)), 0}
		item = append(item, in.Shape...)
		item = append(item, contiguous(in.Shape)...)
		h, v, err := eager.DecodeView(item)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Write(h, v, unsafe.Pointer(&in.Data[0]), int64(len(in.Data))); err != nil {
			t.Fatal(err)
		}
		words = append(words, item...)
	}
	out := make([]int64, 256)
	n, err := RunOnDevice(context.Background(), h, words, out)
	if err != nil {
		t.Fatal(err)
	}
	want := io.Outputs()
	pos := 0
	for i, w := range want {
		if pos >= n || out[pos] != 1 {
			t.Fatalf("output %d: returns %v", i, out[:n])
		}
		buf, nd := out[pos+1], int(out[pos+3])
		shape := out[pos+4 : pos+4+nd]
		pos += 4 + nd
		item := append([]int64{1, buf, out[pos-nd-2], int64(nd), 0}, shape...)
		item = append(item, contiguous(shape)...)
		bh, v, err := eager.DecodeView(item)
		if err != nil {
			t.Fatal(err)
		}
		got := &literal.Literal{DType: w.DType, Shape: append([]int64(nil), shape...), Data: make([]byte, len(w.Data))}
		if err := d.Read(context.Background(), bh, v, unsafe.Pointer(&got.Data[0]), int64(len(got.Data))); err != nil {
			t.Fatal(err)
		}
		if c := runtime.Compare(got, w, runtime.DefaultTolerance(w.DType)); !c.OK {
			t.Fatalf("output %d: %s", i, c.Detail)
		}
		Free(Handle(buf))
	}
	if _, err := RunOnDevice(context.Background(), h, []int64{2, 7}, out); err == nil || !strings.Contains(err.Error(), "forward_mlp: input 0") {
		t.Fatalf("a non-tensor input: %v", err)
	}
}

func contiguous(shape []int64) []int64 {
	st := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st
}

func TestSameBackend(t *testing.T) {
	for _, c := range []struct {
		device, backend string
		ok              bool
	}{{"cpu", "cpu", true}, {"cpu:0", "cpu", true}, {"xla-cpu", "cpu", false}, {"tpu:1", "tpu", false}, {"tpu", "tpu", true}} {
		if got := sameBackend(c.device, c.backend); got != c.ok {
			t.Errorf("sameBackend(%q, %q) = %v", c.device, c.backend, got)
		}
	}
}
