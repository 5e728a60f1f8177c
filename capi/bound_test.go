package capi

import (
	"bytes"
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

// A strided input (here the fixture's first input stored transposed) is
// gathered into memory the bound call keeps and reuses: each call reads
// that call's values (new memory with other contents every call), and no
// call after the first allocates a new gather buffer.
func TestBoundCallStridedInputReusesGather(t *testing.T) {
	h, ins, io := loadFixture(t, "mlp")
	x := io.Inputs()[0]
	if len(x.Shape) != 2 {
		t.Fatalf("the fixture's first input is %v, want a matrix", x.Shape)
	}
	r, c := x.Shape[0], x.Shape[1]
	ins[0].Strides = []int64{1, r} // column-major
	var outs []TensorDesc
	for _, w := range io.Outputs() {
		outs = append(outs, desc(w))
	}
	b, err := Bind(h, ins, outs)
	if err != nil {
		t.Fatal(err)
	}
	defer Free(b)
	bound, err := get[*Bound](b, "bound call")
	if err != nil {
		t.Fatal(err)
	}
	var first *byte
	for call := 0; call < 3; call++ {
		// the input scaled by call+1 (call 0: the fixture's), transposed
		scaled := x.Clone()
		for i := range scaled.Len() {
			scaled.SetFloat64(i, x.Float64(i)*float64(call+1))
		}
		colMajor := x.Clone()
		for i := int64(0); i < r; i++ {
			for j := int64(0); j < c; j++ {
				colMajor.SetFloat64(int(j*r+i), scaled.Float64(int(i*c+j)))
			}
		}
		var ip, op []unsafe.Pointer
		var ie, oe []int64
		ip, ie = append(ip, unsafe.Pointer(&colMajor.Data[0])), append(ie, int64(len(colMajor.Data)))
		for _, l := range io.Inputs()[1:] {
			ip, ie = append(ip, unsafe.Pointer(&l.Data[0])), append(ie, int64(len(l.Data)))
		}
		got := make([]*literal.Literal, len(outs))
		for i, w := range io.Outputs() {
			got[i] = &literal.Literal{DType: w.DType, Shape: w.Shape, Data: make([]byte, len(w.Data))}
			op, oe = append(op, unsafe.Pointer(&got[i].Data[0])), append(oe, int64(len(got[i].Data)))
		}
		if err := RunBound(context.Background(), b, ip, ie, op, oe); err != nil {
			t.Fatalf("call %d: %v", call, err)
		}
		// the same program run the general way on the row-major values
		rowIns := append([]TensorDesc{desc(scaled)}, ins[1:]...)
		for i, l := range io.Inputs()[1:] {
			rowIns[i+1] = desc(l)
		}
		want, err := Run(context.Background(), h, rowIns)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			wl := &literal.Literal{DType: got[i].DType, Shape: got[i].Shape, Data: make([]byte, len(got[i].Data))}
			if err := CopyOut(want, i, unsafe.Pointer(&wl.Data[0]), int64(len(wl.Data))); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[i].Data, wl.Data) {
				t.Fatalf("call %d output %d differs from the general run's", call, i)
			}
		}
		Free(want)
		g := bound.gathered[0]
		if len(g) == 0 {
			t.Fatalf("call %d: the strided input was not gathered into the call's buffer", call)
		}
		if call == 0 {
			first = &g[0]
		} else if &g[0] != first {
			t.Fatalf("call %d gathered into new memory", call)
		}
	}
}
