package eager

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
)

// addOne is a Program computing x+1 for one float32 input, with a static
// output shape or not, and optionally returning its input as well (the
// device must copy that output: it is the input buffer's bytes).
type addOne struct {
	n      int64
	static bool
	echo   bool
	fail   bool
}

func (p *addOne) Name() string { return "forward_7" }

func (p *addOne) Outputs() ([]*OutputSpec, bool) {
	outs := []*OutputSpec{{DType: f32, Shape: []int64{p.n}}, nil}
	if p.echo {
		outs = append(outs, &OutputSpec{DType: f32, Shape: []int64{p.n}})
	}
	return outs, p.static
}

func (p *addOne) Run(_ context.Context, ins []*literal.Literal) ([]*literal.Literal, error) {
	if p.fail {
		return nil, errTest
	}
	x := ins[0]
	y := &literal.Literal{DType: x.DType, Shape: x.Shape, Data: make([]byte, len(x.Data))}
	for i := 0; i < len(x.Data); i += 4 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(x.Data[i:]))
		binary.LittleEndian.PutUint32(y.Data[i:], math.Float32bits(v+1))
	}
	outs := []*literal.Literal{y, nil}
	if p.echo {
		outs = append(outs, x)
	}
	return outs, nil
}

type testErr string

func (e testErr) Error() string { return string(e) }

var errTest = testErr("the program failed")

// returnsOf splits n return words into groups: [retNew handle dtype ndim
// sizes...] or nil for [retNone].
func returnsOf(t *testing.T, out []int64, n int) [][]int64 {
	t.Helper()
	var groups [][]int64
	for pos := 0; pos < n; {
		switch out[pos] {
		case retNone:
			groups = append(groups, nil)
			pos++
		case retNew:
			nd := int(out[pos+3])
			groups = append(groups, out[pos:pos+4+nd])
			pos += 4 + nd
		default:
			t.Fatalf("return kind %d", out[pos])
		}
	}
	return groups
}

func TestRunProgramOnBuffers(t *testing.T) {
	for _, mode := range []string{"async", "debug", "fused"} {
		for _, static := range []bool{true, false} {
			d := testDevice(t, mode)
			h := upload(t, d, []float32{1, 2, 3})
			p := &addOne{n: 3, static: static, echo: true}
			out := make([]int64, 64)
			n, err := d.RunProgram(context.Background(), p, tensorWords(h, 0, []int64{3}, []int64{1}), out)
			if err != nil {
				t.Fatal(mode, static, err)
			}
			rets := returnsOf(t, out, n)
			if len(rets) != 3 || rets[1] != nil || rets[0][2] != 6 || rets[0][4] != 3 {
				t.Fatalf("%s static=%v: returns %v", mode, static, out[:n])
			}
			y, echo := Handle(rets[0][1]), Handle(rets[2][1])
			if got := download(t, d, y, 3); got[0] != 2 || got[2] != 4 {
				t.Fatalf("%s static=%v: x+1 = %v", mode, static, got)
			}
			// The echoed input is a buffer of its own: writing the input
			// later does not change it.
			upload2(t, d, h, []float32{9, 9, 9})
			if got := download(t, d, echo, 3); got[0] != 1 || got[2] != 3 {
				t.Fatalf("%s static=%v: echoed input = %v", mode, static, got)
			}
		}
	}
}

// upload2 writes xs over buffer h.
func upload2(t *testing.T, d *Device, h Handle, xs []float32) {
	t.Helper()
	v := View{DType: f32, Shape: []int64{int64(len(xs))}, Strides: []int64{1}}
	if err := d.Write(h, v, unsafe.Pointer(&xs[0]), int64(4*len(xs))); err != nil {
		t.Fatal(err)
	}
}

func TestRunProgramReadsAView(t *testing.T) {
	d := testDevice(t, "async")
	h := upload(t, d, []float32{1, 2, 3, 4, 5, 6})
	p := &addOne{n: 3, static: true}
	out := make([]int64, 64)
	// every other element: a strided view, gathered for the program
	n, err := d.RunProgram(context.Background(), p, tensorWords(h, 1, []int64{3}, []int64{2}), out)
	if err != nil {
		t.Fatal(err)
	}
	if got := download(t, d, Handle(returnsOf(t, out, n)[0][1]), 3); got[0] != 3 || got[1] != 5 || got[2] != 7 {
		t.Fatalf("view+1 = %v", got)
	}
}

func TestRunProgramErrors(t *testing.T) {
	d := testDevice(t, "async")
	h := upload(t, d, []float32{1, 2, 3})
	out := make([]int64, 64)
	// A queued run's failure names the program at the next synchronisation.
	if _, err := d.RunProgram(context.Background(), &addOne{n: 3, static: true, fail: true}, tensorWords(h, 0, []int64{3}, []int64{1}), out); err != nil {
		t.Fatal(err)
	}
	if err := d.Synchronize(context.Background()); err == nil || !strings.Contains(err.Error(), "forward_7: the program failed") {
		t.Fatalf("sync: %v", err)
	}
	// A view past its buffer, and an item that is not a tensor, fail at the call.
	if _, err := d.RunProgram(context.Background(), &addOne{n: 4, static: true}, tensorWords(h, 0, []int64{4}, []int64{1}), out); err == nil || !strings.Contains(err.Error(), "input 0") {
		t.Fatalf("view past the buffer: %v", err)
	}
	if _, err := d.RunProgram(context.Background(), &addOne{n: 3, static: true}, []int64{tagInt, 3}, out); err == nil || !strings.Contains(err.Error(), "input 0") {
		t.Fatalf("int item: %v", err)
	}
}

func TestProfilerRecordsTasks(t *testing.T) {
	d := testDevice(t, "async")
	add := opID(t, d, "aten::add.Tensor")
	d.ProfileStart()
	d.ProfileTag(41)
	h := upload(t, d, []float32{1, 2, 3})
	d.ProfileTag(42)
	out := make([]int64, 64)
	w := tensorWords(h, 0, []int64{3}, []int64{1})
	w = append(append(w, tensorWords(h, 0, []int64{3}, []int64{1})...), tagInt, 1)
	call(t, d, add, w)
	d.ProfileTag(43)
	if _, err := d.RunProgram(context.Background(), &addOne{n: 3, static: true}, tensorWords(h, 0, []int64{3}, []int64{1}), out); err != nil {
		t.Fatal(err)
	}
	recs, dropped, err := d.ProfileStop(context.Background())
	if err != nil || dropped != 0 {
		t.Fatal(err, dropped)
	}
	want := []struct {
		name string
		kind RecordKind
		tag  uint64
	}{{"write to tpu", KindCopy, 41}, {"aten::add.Tensor", KindOp, 42}, {"forward_7", KindProgram, 43}}
	if len(recs) != len(want) {
		t.Fatalf("records %+v", recs)
	}
	for i, w := range want {
		r := recs[i]
		if r.Name != w.name || r.Kind != w.kind || r.Tag != w.tag || r.End < r.Start || r.Start == 0 {
			t.Fatalf("record %d: %+v, want %+v", i, r, w)
		}
	}
	// Off again: nothing is recorded.
	call(t, d, add, w)
	d.ProfileStart()
	if recs, _, _ := d.ProfileStop(context.Background()); len(recs) != 0 {
		t.Fatalf("records after a stop: %+v", recs)
	}
}

// noneFirst returns None before a tensor output: the copy check skips it.
type noneFirst struct{ addOne }

func (p *noneFirst) Outputs() ([]*OutputSpec, bool) {
	return []*OutputSpec{nil, {DType: f32, Shape: []int64{p.n}}}, true
}

func (p *noneFirst) Run(ctx context.Context, ins []*literal.Literal) ([]*literal.Literal, error) {
	outs, err := p.addOne.Run(ctx, ins)
	return []*literal.Literal{nil, outs[0]}, err
}

func TestRunProgramNoneBeforeTensor(t *testing.T) {
	d := testDevice(t, "async")
	h := upload(t, d, []float32{1, 2, 3})
	out := make([]int64, 64)
	n, err := d.RunProgram(context.Background(), &noneFirst{addOne{n: 3}}, tensorWords(h, 0, []int64{3}, []int64{1}), out)
	if err != nil {
		t.Fatal(err)
	}
	if got := download(t, d, Handle(returnsOf(t, out, n)[1][1]), 3); got[0] != 2 {
		t.Fatalf("x+1 = %v", got)
	}
}
