package capi

import (
	"context"
	"strings"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/eager"
)

// The eager device's skin: its buffers are this package's handles (freed
// by Free, counted by Live, checked when argument words name them) and
// its CPU tensor arguments are read with TensorDesc's checks. The
// runtime itself is tested in package eager.

// Argument word tags (eager/args.go).
const (
	tagTensor     = 1
	tagInt        = 2
	tagHostTensor = 13
)

func TestEagerHandles(t *testing.T) {
	ctx := context.Background()
	d, err := eager.New(eager.Options{Mode: "debug"}, host{})
	if err != nil {
		t.Fatal(err)
	}
	before := Live()["buffer"]
	h, err := d.NewBuffer(12)
	if err != nil {
		t.Fatal(err)
	}
	if got := Live()["buffer"]; got != before+1 {
		t.Fatalf("live buffers %d after NewBuffer, want %d", got, before+1)
	}
	view := []int64{tagTensor, int64(h), 6, 1, 0, 3, 1}
	_, v, err := eager.DecodeView(view)
	if err != nil {
		t.Fatal(err)
	}
	xs := []float32{1, 2, 3}
	if err := d.Write(h, v, unsafe.Pointer(&xs[0]), 12); err != nil {
		t.Fatal(err)
	}
	e, _ := aten.Lookup("aten::add.Tensor")
	add, err := d.OpID("aten::add.Tensor", e.ParsedSchema().Text)
	if err != nil {
		t.Fatal(err)
	}
	// x + a CPU tensor: a new buffer with a handle of this table
	ys := []float32{10, 20, 30}
	f32, _ := dtype.F32.ScalarType()
	cpu := []int64{tagHostTensor, int64(uintptr(unsafe.Pointer(&ys[0]))), 12, int64(f32), 1, 3, 1}
	words := append(append(append([]int64{}, view...), cpu...), tagInt, 1)
	out := make([]int64, 16)
	st, msg, _, err := d.Call(ctx, add, words, eager.FlagCompile, out)
	if err != nil || st != eager.StatusOK {
		t.Fatalf("x + cpu: status %d %q %v", st, msg, err)
	}
	sum := Handle(out[1])
	if _, err := get[*eager.Buffer](sum, "buffer"); err != nil {
		t.Fatalf("the result's handle: %v", err)
	}
	got := make([]float32, 3)
	_, rv, _ := eager.DecodeView([]int64{tagTensor, int64(sum), 6, 1, 0, 3, 1})
	if err := d.Read(ctx, uint64(sum), rv, unsafe.Pointer(&got[0]), 12); err != nil || got[2] != 33 {
		t.Fatalf("x + cpu = %v, %v", got, err)
	}
	// a CPU tensor whose description runs past its extent is refused
	bad := append([]int64{}, cpu...)
	bad[2] = 8
	words = append(append(append([]int64{}, view...), bad...), tagInt, 1)
	if _, _, _, err := d.Call(ctx, add, words, eager.FlagCompile, out); err == nil || !strings.Contains(err.Error(), "CPU tensor argument") {
		t.Errorf("a CPU tensor past its extent: %v", err)
	}
	if err := Free(sum); err != nil {
		t.Fatal(err)
	}
	if err := Free(Handle(h)); err != nil {
		t.Fatal(err)
	}
	if got := Live()["buffer"]; got != before {
		t.Fatalf("live buffers %d after Free, want %d", got, before)
	}
	if a, _ := d.Memory(); a != 0 {
		t.Errorf("%d bytes allocated after freeing every buffer", a)
	}
	// a freed handle, in words and in a read
	words = append(append(append([]int64{}, view...), view...), tagInt, 1)
	if _, _, _, err := d.Call(ctx, add, words, eager.FlagCompile, out); err == nil || !strings.Contains(err.Error(), "already freed") {
		t.Errorf("a freed handle in words: %v", err)
	}
	if err := d.Read(ctx, uint64(h), v, unsafe.Pointer(&got[0]), 12); err == nil || !strings.Contains(err.Error(), "already freed") {
		t.Errorf("a read of a freed handle: %v", err)
	}
	if err := Free(Handle(h)); err == nil {
		t.Error("double free: no error")
	}
}
