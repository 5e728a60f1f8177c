package capi

import (
	"context"
	"strings"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
)

// A bound call gives PyTorch's outputs for the fixture over several calls
// with fresh memory each time, and checks the extents of every call.
func TestBoundCall(t *testing.T) {
	h, ins, io := loadFixture(t, "mlp")
	var outs []TensorDesc
	want := io.Outputs()
	for _, w := range want {
		outs = append(outs, desc(w))
	}
	b, err := Bind(h, ins, outs)
	if err != nil {
		t.Fatal(err)
	}
	defer Free(b)
	for call := 0; call < 3; call++ {
		var ip, op []unsafe.Pointer
		var ie, oe []int64
		for _, l := range io.Inputs() {
			c := l.Clone() // new memory each call
			ip, ie = append(ip, unsafe.Pointer(&c.Data[0])), append(ie, int64(len(c.Data)))
		}
		got := make([]*literal.Literal, len(want))
		for i, w := range want {
			got[i] = &literal.Literal{DType: w.DType, Shape: w.Shape, Data: make([]byte, len(w.Data))}
			op, oe = append(op, unsafe.Pointer(&got[i].Data[0])), append(oe, int64(len(got[i].Data)))
		}
		if err := RunBound(context.Background(), b, ip, ie, op, oe); err != nil {
			t.Fatalf("call %d: %v", call, err)
		}
		for i, w := range want {
			if c := runtime.Compare(got[i], w, runtime.DefaultTolerance(w.DType)); !c.OK {
				t.Fatalf("call %d output %d: %s", call, i, c.Detail)
			}
		}
		if call == 2 {
			ie[0]-- // one byte short of what the bound shape addresses
			err := RunBound(context.Background(), b, ip, ie, op, oe)
			if err == nil || !strings.Contains(err.Error(), "input 0") {
				t.Errorf("short input extent: %v", err)
			}
			ie[0]++
			oe[0]--
			err = RunBound(context.Background(), b, ip, ie, op, oe)
			if err == nil || !strings.Contains(err.Error(), "output 0") {
				t.Errorf("short output extent: %v", err)
			}
			oe[0]++
			if err := RunBound(context.Background(), b, ip[:len(ip)-1], ie[:len(ie)-1], op, oe); err == nil || !strings.Contains(err.Error(), "binds") {
				t.Errorf("too few inputs: %v", err)
			}
		}
	}
	if _, err := Bind(b, ins, outs); err == nil || !strings.Contains(err.Error(), "not a program") {
		t.Errorf("bind of a bound call: %v", err)
	}
	if err := RunBound(context.Background(), h, nil, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "not a bound call") {
		t.Errorf("a program run as a bound call: %v", err)
	}
}

// A program whose run has no parallel loop stops asking the host for its
// threads (lend); one whose run has loops keeps asking.
func TestLendFollowsParallelLoops(t *testing.T) {
	if native.Threads() < 2 {
		t.Skip("one thread: no run has a parallel loop")
	}
	for _, c := range []struct {
		name   string
		serial bool
	}{{"mlp", true}, {"resnet18", false}} {
		h, ins, _ := loadFixture(t, c.name)
		for i := 0; i < 2; i++ {
			res, err := Run(context.Background(), h, ins)
			if err != nil {
				t.Fatal(err)
			}
			Free(res)
		}
		p, _ := get[*Program](h, "program")
		if p.serial != c.serial {
			t.Errorf("%s: serial %v, want %v", c.name, p.serial, c.serial)
		}
	}
}

// The engine is offered the destinations it may compute outputs into:
// dense ones of outputBufferMin bytes or more, none overlapping an input
// or another destination.
func TestOutputBuffers(t *testing.T) {
	const e = outputBufferMin / 4 // float32 elements of the smallest offered
	mem := make([]byte, 16*outputBufferMin)
	at := func(off int) unsafe.Pointer { return unsafe.Pointer(&mem[off]) }
	d := func(off int, shape []int64, strides []int64) TensorDesc {
		return TensorDesc{DType: 6, Shape: shape, Strides: strides, Data: at(off), Extent: int64(len(mem) - off)} // float32
	}
	in := &literal.Literal{Data: mem[12*outputBufferMin : 13*outputBufferMin]}
	outs := []TensorDesc{
		d(0, []int64{4, e / 4}, nil),                             // dense: offered
		d(outputBufferMin, []int64{e / 4, 4}, []int64{1, e / 4}), // strided: not
		d(3*outputBufferMin, []int64{e}, nil),                    // overlaps the next one
		d(4*outputBufferMin-4, []int64{e}, nil),                  //
		d(12*outputBufferMin-4, []int64{e}, nil),                 // overlaps the input
		{DType: -1},                                              // skipped
		d(6*outputBufferMin, []int64{0}, nil),                    // empty
		d(7*outputBufferMin, []int64{e - 1}, nil),                // small
		d(9*outputBufferMin, []int64{2, e}, nil),                 // dense: offered
	}
	got := outputBuffers(outs, []*literal.Literal{in})
	want := []bool{true, false, false, false, false, false, false, false, true}
	for i, w := range want {
		if (got[i] != nil) != w {
			t.Errorf("destination %d offered: %v, want %v", i, got[i] != nil, w)
		}
	}
	if len(got[0]) != outputBufferMin || unsafe.Pointer(&got[0][0]) != at(0) {
		t.Errorf("destination 0 is %d bytes at %p, want %d at %p", len(got[0]), unsafe.SliceData(got[0]), outputBufferMin, at(0))
	}
	if outputBuffers(outs[5:8], nil) != nil {
		t.Error("outputs none of which is offered: want nil")
	}
}
