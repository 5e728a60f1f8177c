package eager

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/dtype"
)

// The eager device's mechanics, driven as the C ABI drives it: buffers, views,
// the signature cache, writes through views, out= resizing, declines and
// errors. Semantics against PyTorch are python/tests/test_device*.py.

var f32 = mustDType(6)

func mustDType(code int32) dtype.DType {
	d, err := dtype.OfScalarType(code)
	if err != nil {
		panic(err)
	}
	return d
}

func testDevice(t *testing.T, mode string) *Device {
	t.Helper()
	d, err := newDevice(Options{Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tensorWords encodes a float32 view of buffer h.
func tensorWords(h Handle, offset int64, shape, strides []int64) []int64 {
	w := []int64{tagTensor, int64(h), 6, int64(len(shape)), offset}
	w = append(w, shape...)
	return append(w, strides...)
}

func upload(t *testing.T, d *Device, xs []float32) Handle {
	t.Helper()
	h, err := d.NewBuffer(int64(4 * len(xs)))
	if err != nil {
		t.Fatal(err)
	}
	v := View{DType: f32, Shape: []int64{int64(len(xs))}, Strides: []int64{1}}
	if err := d.Write(h, v, unsafe.Pointer(&xs[0]), int64(4*len(xs))); err != nil {
		t.Fatal(err)
	}
	return h
}

func download(t *testing.T, d *Device, h Handle, n int) []float32 {
	t.Helper()
	out := make([]float32, n)
	v := View{DType: f32, Shape: []int64{int64(n)}, Strides: []int64{1}}
	if err := d.Read(context.Background(), h, v, unsafe.Pointer(&out[0]), int64(4*n)); err != nil {
		t.Fatal(err)
	}
	return out
}

func opID(t *testing.T, d *Device, name string) int32 { return opIDB(t, d, name) }

func opIDB(t testing.TB, d *Device, name string) int32 {
	t.Helper()
	e, ok := aten.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	id, err := d.OpID(name, e.ParsedSchema().Text)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// call runs an op, compiling on a miss, and returns the return words.
func call(t *testing.T, d *Device, op int32, words []int64) []int64 {
	t.Helper()
	out := make([]int64, 64)
	st, msg, n, err := d.Call(context.Background(), op, words, 0, out)
	if err == nil && st == StatusMiss {
		st, msg, n, err = d.Call(context.Background(), op, words, FlagCompile, out)
	}
	if err != nil || st != StatusOK {
		t.Fatalf("status %d %q: %v", st, msg, err)
	}
	return out[:n]
}

func TestEagerAddAndWriteThroughView(t *testing.T) {
	for _, mode := range []string{"debug", "async"} {
		t.Run(mode, func(t *testing.T) {
			d := testDevice(t, mode)
			x := upload(t, d, []float32{0, 1, 2, 3, 4, 5})
			defer Free(x)
			add := opID(t, d, "aten::add.Tensor")
			// y = x + x: a new buffer.
			ret := call(t, d, add, append(append(tensorWords(x, 0, []int64{6}, []int64{1}), tensorWords(x, 0, []int64{6}, []int64{1})...), tagInt, 1))
			if ret[0] != retNew || ret[2] != 6 || ret[3] != 1 || ret[4] != 6 {
				t.Fatalf("returns %v", ret)
			}
			y := Handle(ret[1])
			got := download(t, d, y, 6)
			for i, v := range got {
				if v != float32(2*i) {
					t.Fatalf("x+x = %v", got)
				}
			}
			Free(y)
			// x[1:5:2] += 10 (a strided view: elements 1 and 3), through
			// add_.Tensor with a wrapped Python number.
			addIn := opID(t, d, "aten::add_.Tensor")
			w := tensorWords(x, 1, []int64{2}, []int64{2})
			w = append(w, tagScalar, 4, 1, 10, 0, tagInt, 1)
			ret = call(t, d, addIn, w)
			if len(ret) != 2 || ret[0] != retAlias || ret[1] != 0 {
				t.Fatalf("in-place returns %v", ret)
			}
			got = download(t, d, x, 6)
			want := []float32{0, 11, 2, 13, 4, 5}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("after x[1::2] += 10: %v, want %v", got, want)
				}
			}
			if s := d.stats; s.PlanMisses != 2 {
				t.Errorf("plan misses %d, want 2", s.PlanMisses)
			}
			// The same signature with another number hits the plan.
			w[len(w)-4] = 20
			call(t, d, addIn, w)
			if s := d.stats; s.PlanMisses != 2 || s.PlanHits != 1 {
				t.Errorf("misses %d hits %d, want 2 and 1", s.PlanMisses, s.PlanHits)
			}
			if got := download(t, d, x, 6); got[1] != 31 || got[3] != 33 {
				t.Fatalf("after += 20: %v", got)
			}
		})
	}
}

func TestEagerOutResizeAndDecline(t *testing.T) {
	d := testDevice(t, "debug")
	x := upload(t, d, []float32{1, 4, 9})
	out, _ := d.NewBuffer(0)
	defer Free(x)
	defer Free(out)
	e, _ := aten.Lookup("aten::sqrt.default")
	_ = e
	id, err := d.OpID("aten::sqrt.out", "sqrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
	if err != nil {
		t.Fatal(err)
	}
	w := append(tensorWords(x, 0, []int64{3}, []int64{1}), tensorWords(out, 0, []int64{0}, []int64{1})...)
	res := make([]int64, 16)
	st, _, n, err := d.Call(context.Background(), id, w, FlagCompile, res)
	if err != nil || st != StatusResize || n != 4 || res[0] != 1 || res[1] != 1 || res[2] != 1 || res[3] != 3 {
		t.Fatalf("status %d, returns %v, %v", st, res[:n], err)
	}
	if err := d.ResizeBuffer(out, 12); err != nil {
		t.Fatal(err)
	}
	w = append(tensorWords(x, 0, []int64{3}, []int64{1}), tensorWords(out, 0, []int64{3}, []int64{1})...)
	ret := call(t, d, id, w)
	if ret[0] != retAlias || ret[1] != 1 {
		t.Fatalf("returns %v", ret)
	}
	got := download(t, d, out, 3)
	for i, v := range got {
		if v != float32(math.Sqrt(float64((i+1)*(i+1)))) {
			t.Fatalf("sqrt = %v", got)
		}
	}
	// An op the registry lacks is declined with the reason.
	nope, err := d.OpID("aten::no_such_op.default", "no_such_op(Tensor self) -> Tensor")
	if err != nil {
		t.Fatal(err)
	}
	st, msg, _, err := d.Call(context.Background(), nope, tensorWords(x, 0, []int64{3}, []int64{1}), FlagCompile, res)
	if err != nil || st != StatusDecline || !strings.Contains(msg, "registry") {
		t.Fatalf("status %d %q %v", st, msg, err)
	}
}

func TestEagerBadInput(t *testing.T) {
	d := testDevice(t, "async")
	x := upload(t, d, []float32{1, 2})
	add := opID(t, d, "aten::add.Tensor")
	res := make([]int64, 16)
	cases := map[string][]int64{
		"past the":         append(append(tensorWords(x, 1, []int64{2}, []int64{1}), tensorWords(x, 0, []int64{2}, []int64{1})...), tagInt, 1),
		"end early":        {tagTensor, int64(x), 6, 1},
		"unknown argument": {99},
		"does not exist":   append(tensorWords(x+1000, 0, []int64{2}, []int64{1}), tensorWords(x, 0, []int64{2}, []int64{1})...),
	}
	for want, w := range cases {
		_, _, _, err := d.Call(context.Background(), add, w, FlagCompile, res)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v", want, err)
		}
	}
	// a dtype the engine lacks (complex32) is declined: the caller falls back
	w := append(append([]int64{tagTensor, int64(x), 8, 1, 0, 1, 1}, tensorWords(x, 0, []int64{2}, []int64{1})...), tagInt, 1)
	if st, msg, _, err := d.Call(context.Background(), add, w, FlagCompile, res); err != nil || st != StatusDecline || !strings.Contains(msg, "not a torch dtype") {
		t.Errorf("complex32: status %d %q %v", st, msg, err)
	}
	Free(x)
	_, _, _, err := d.Call(context.Background(), add, append(tensorWords(x, 0, []int64{2}, []int64{1}), tensorWords(x, 0, []int64{2}, []int64{1})...), FlagCompile, res)
	if err == nil || !strings.Contains(err.Error(), "already freed") {
		t.Errorf("freed buffer: %v", err)
	}
	if _, err := d.OpID("aten::x", "x(Tensor self"); err == nil {
		t.Error("bad schema: no error")
	}
	if err := d.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestEagerFusedMatchesDebug runs the same ops in fused and debug mode:
// whole and partial writes, strided and transposed reads, a value used
// after an in-place update; the block compiles once for two rounds.
func TestEagerFusedMatchesDebug(t *testing.T) {
	run := func(mode string) ([]float32, Stats) {
		d := testDevice(t, mode)
		x := upload(t, d, []float32{0, 1, 2, 3, 4, 5})
		add := opID(t, d, "aten::add.Tensor")
		mul := opID(t, d, "aten::mul.Tensor")
		addIn := opID(t, d, "aten::add_.Tensor")
		for round := 0; round < 2; round++ {
			// y = x + x
			y := Handle(call(t, d, add, append(append(tensorWords(x, 0, []int64{6}, []int64{1}), tensorWords(x, 0, []int64{6}, []int64{1})...), tagInt, 1))[1])
			// y[1:3] += 10
			call(t, d, addIn, append(tensorWords(y, 1, []int64{2}, []int64{1}), tagScalar, 4, 1, 10, 0, tagInt, 1))
			// z = y.view(2,3).t() * x.view(3,2)
			z := Handle(call(t, d, mul, append(tensorWords(y, 0, []int64{3, 2}, []int64{1, 3}), tensorWords(x, 0, []int64{3, 2}, []int64{2, 1})...))[1])
			// x[::2] += z.view(6)[::2] (a strided write from a strided read)
			call(t, d, addIn, append(append(tensorWords(x, 0, []int64{3}, []int64{2}), tensorWords(z, 0, []int64{3}, []int64{2})...), tagInt, 1))
			Free(y)
			Free(z)
			if err := d.Synchronize(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		got := download(t, d, x, 6)
		return got, d.stats
	}
	want, _ := run("debug")
	got, st := run("fused")
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fused %v, debug %v", got, want)
		}
	}
	if st.Blocks != 2 || st.BlockOps != 8 || st.BlockCompiles != 1 {
		t.Errorf("blocks %d, ops %d, compiles %d; want 2, 8, 1", st.Blocks, st.BlockOps, st.BlockCompiles)
	}
}

// TestEagerImplicitWrites: ops whose kernels fill arguments the schema
// does not return (cummax's helper) write them from the functional entry.
func TestEagerImplicitWrites(t *testing.T) {
	d := testDevice(t, "debug")
	in := []float32{1, 3, 2, 5, 4}
	x := upload(t, d, in)
	vals := upload(t, d, []float32{0, 0, 0, 0, 0})
	idx, _ := d.NewBuffer(5 * 8)
	id, err := d.OpID("aten::_cummax_helper.default", "_cummax_helper(Tensor self, Tensor(a!) values, Tensor(b!) indices, int dim) -> ()")
	if err != nil {
		t.Fatal(err)
	}
	w := append(tensorWords(x, 0, []int64{5}, []int64{1}), tensorWords(vals, 0, []int64{5}, []int64{1})...)
	w = append(w, tagTensor, int64(idx), 4, 1, 0, 5, 1, tagInt, 0)
	if ret := call(t, d, id, w); len(ret) != 0 {
		t.Fatalf("returns %v, want none", ret)
	}
	got := download(t, d, vals, 5)
	run := in[0]
	for i, v := range in {
		run = max(run, v)
		if got[i] != run {
			t.Fatalf("cummax values %v of %v", got, in)
		}
	}
}

// TestEagerFusedViews reads many kinds of views inside a fused block and
// compares with debug mode (which gathers on the host): slices, steps,
// transposes of slices, expands, and views past a box's end.
func TestEagerFusedViews(t *testing.T) {
	views := []struct {
		off            int64
		shape, strides []int64
	}{
		{0, []int64{4, 6}, []int64{6, 1}},        // whole
		{2, []int64{4, 2}, []int64{6, 1}},        // column slice
		{1, []int64{2, 3}, []int64{12, 2}},       // rows with a step, columns with a step
		{3, []int64{3, 4}, []int64{1, 6}},        // transposed slice
		{0, []int64{2, 4, 3}, []int64{3, 6, 1}},  // a permutation (qkv-style heads)
		{5, []int64{4, 1}, []int64{6, 1}},        // last column, through the buffer's end
		{0, []int64{3, 4}, []int64{0, 1}},        // expanded row
		{1, []int64{2, 2, 2}, []int64{12, 1, 6}}, // nested
		{0, []int64{5}, []int64{5}},              // a diagonal-like step
	}
	in := make([]float32, 24)
	for i := range in {
		in[i] = float32(i*7%11) - 3
	}
	run := func(mode string) [][]float32 {
		d := testDevice(t, mode)
		x := upload(t, d, in)
		neg := opID(t, d, "aten::neg.default")
		var outs [][]float32
		var hs []Handle
		for _, v := range views {
			hs = append(hs, Handle(call(t, d, neg, tensorWords(x, v.off, v.shape, v.strides))[1]))
		}
		for i, v := range views {
			outs = append(outs, download(t, d, hs[i], int(numelOf(v.shape))))
		}
		return outs
	}
	want, got := run("debug"), run("fused")
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("view %d %+v: fused %v, debug %v", i, views[i], got[i], want[i])
			}
		}
	}
}

// TestEagerFusedReadSkipsBlock: a read flushes the recorded block, and
// waits for it only when the block touches the buffer read; the values
// read either way are the ones debug mode computes.
func TestEagerFusedReadSkipsBlock(t *testing.T) {
	d := testDevice(t, "fused")
	x := upload(t, d, []float32{1, 2, 3})
	twice := adder(t, d)
	a := twice(x)
	if err := d.Synchronize(context.Background()); err != nil {
		t.Fatal(err)
	}
	blocks := d.stats.Blocks
	// the block holds x and b, not a: the read of a waits for the tasks
	// before the block only
	b := twice(x)
	d.mu.Lock()
	before := d.q.last()
	seq, err := d.readAfter(buf(t, d, a))
	after := d.q.last()
	d.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if d.stats.Blocks != blocks+1 || after != before+1 || seq != before {
		t.Fatalf("blocks %d→%d, queue %d→%d, read waits for %d: want the block flushed and not waited for", blocks, d.stats.Blocks, before, after, seq)
	}
	// the block holds c: the read waits for it
	c := twice(b)
	d.mu.Lock()
	seq, err = d.readAfter(buf(t, d, c))
	after = d.q.last()
	d.mu.Unlock()
	if err != nil || seq != after {
		t.Fatalf("read of a block's result waits for task %d of %d (%v)", seq, after, err)
	}
	expectReads(t, d, map[Handle][]float32{a: {2, 4, 6}, b: {2, 4, 6}, c: {4, 8, 12}})
}

// buf is the buffer of handle h.
func buf(t *testing.T, d *Device, h Handle) *Buffer {
	t.Helper()
	b, err := d.host.Buffer(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEagerAsyncReadWaitsForItsBuffer: in async mode a read waits for the
// last queued task touching its buffer, not for later work on others.
func TestEagerAsyncReadWaitsForItsBuffer(t *testing.T) {
	d := testDevice(t, "async")
	x := upload(t, d, []float32{1, 2, 3})
	y := upload(t, d, []float32{5, 6, 7})
	twice := adder(t, d)
	a := twice(x)
	d.mu.Lock()
	wrote := d.q.last()
	d.mu.Unlock()
	b := twice(y)
	c := twice(b)
	d.mu.Lock()
	seq, err := d.readAfter(buf(t, d, a))
	last := d.q.last()
	d.mu.Unlock()
	if err != nil || seq != wrote || seq >= last {
		t.Fatalf("read of a waits for task %d (%v); a was written by task %d, the queue ends at %d", seq, err, wrote, last)
	}
	expectReads(t, d, map[Handle][]float32{a: {2, 4, 6}, c: {20, 24, 28}, x: {1, 2, 3}})
}

// adder returns a function queuing h + h (three floats) on d and
// returning the result's handle.
func adder(t *testing.T, d *Device) func(h Handle) Handle {
	add := opID(t, d, "aten::add.Tensor")
	return func(h Handle) Handle {
		w := append(append(tensorWords(h, 0, []int64{3}, []int64{1}), tensorWords(h, 0, []int64{3}, []int64{1})...), tagInt, 1)
		return Handle(call(t, d, add, w)[1])
	}
}

// expectReads reads each handle's floats and compares them with want's.
func expectReads(t *testing.T, d *Device, want map[Handle][]float32) {
	t.Helper()
	for h, w := range want {
		if got := download(t, d, h, len(w)); !slices.Equal(got, w) {
			t.Errorf("buffer %d reads %v, want %v", h, got, w)
		}
	}
}

// TestEagerTransposedArguments: an op reading a whole buffer through its
// .t() view takes the buffer as it is and transposes it in the module
// (plan.compileTransposed); the results are the ones of the same op on a
// transposed copy, in async and debug mode, for a product and an
// elementwise op, and a transposed view of part of a buffer is gathered
// as before.
func TestEagerTransposedArguments(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5, 6}                      // [2, 3]
	b := []float32{1, -1, 2, 0, 3, 1, -2, 4, 5, 1, 0, 2}  // [4, 3]
	bt := []float32{1, 0, -2, 1, -1, 3, 4, 0, 2, 1, 5, 2} // b.t(): [3, 4]
	c := []float32{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120}
	for _, mode := range []string{"async", "debug"} {
		d := testDevice(t, mode)
		ha, hb, hbt, hc := upload(t, d, a), upload(t, d, b), upload(t, d, bt), upload(t, d, c)
		mm := opID(t, d, "aten::mm.default")
		add := opID(t, d, "aten::add.Tensor")
		viaT := Handle(call(t, d, mm, append(tensorWords(ha, 0, []int64{2, 3}, []int64{3, 1}), tensorWords(hb, 0, []int64{3, 4}, []int64{1, 3})...))[1])
		direct := Handle(call(t, d, mm, append(tensorWords(ha, 0, []int64{2, 3}, []int64{3, 1}), tensorWords(hbt, 0, []int64{3, 4}, []int64{4, 1})...))[1])
		sumT := Handle(call(t, d, add, append(append(tensorWords(hb, 0, []int64{3, 4}, []int64{1, 3}), tensorWords(hc, 0, []int64{3, 4}, []int64{4, 1})...), tagInt, 1))[1])
		// b[:2].t(): part of the buffer, gathered
		part := Handle(call(t, d, add, append(append(tensorWords(hb, 0, []int64{3, 2}, []int64{1, 3}), tensorWords(hc, 0, []int64{3, 2}, []int64{2, 1})...), tagInt, 1))[1])
		want := download(t, d, direct, 8)
		sumWant := make([]float32, 12)
		for i := range sumWant {
			sumWant[i] = bt[i] + c[i]
		}
		partWant := make([]float32, 6)
		for i := 0; i < 3; i++ {
			for j := 0; j < 2; j++ {
				partWant[i*2+j] = b[j*3+i] + c[i*2+j]
			}
		}
		expectReads(t, d, map[Handle][]float32{viaT: want, sumT: sumWant, part: partWant})
		if got := want[0]; got != 1*1+2*-1+3*2 {
			t.Fatalf("%s: a·bᵀ[0][0] = %v, want 5", mode, got)
		}
		compiled := 0
		for _, p := range d.plans {
			compiled += len(p.transposed)
		}
		if compiled != 2 {
			t.Errorf("%s: %d executables take transposed buffers, want 2 (mm and add)", mode, compiled)
		}
	}
}

// TestEagerPooledResults: large results of single ops are computed into
// the device's pool (bytePool) and the bytes an in-place update replaces
// go back to it; values stay right through in-place updates, partial
// (strided) writes, new results and reads in between, and the pool
// reuses its memory.
func TestEagerPooledResults(t *testing.T) {
	const n = 1 << 15 // 128 KB of float32
	d := testDevice(t, "async")
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i % 13)
	}
	x := upload(t, d, xs)
	mul := opID(t, d, "aten::mul.Tensor")
	addIn := opID(t, d, "aten::add_.Tensor")
	whole := tensorWords(x, 0, []int64{n}, []int64{1})
	evens := tensorWords(x, 0, []int64{n / 2}, []int64{2})
	want := append([]float32(nil), xs...)
	for step := 0; step < 6; step++ {
		// x += 1 (in place, whole); x[::2] += 2 (in place, strided)
		call(t, d, addIn, append(append([]int64(nil), whole...), tagScalar, 4, 1, 1, 0, tagInt, 1))
		call(t, d, addIn, append(append([]int64(nil), evens...), tagScalar, 4, 1, 2, 0, tagInt, 1))
		// y = x * x (a new result)
		y := Handle(call(t, d, mul, append(append([]int64(nil), whole...), whole...))[1])
		for i := range want {
			want[i]++
			if i%2 == 0 {
				want[i] += 2
			}
		}
		sq := make([]float32, n)
		for i, v := range want {
			sq[i] = v * v
		}
		if got := download(t, d, y, n); !slices.Equal(got, sq) {
			t.Fatalf("step %d: y = x·x differs", step)
		}
		if got := download(t, d, x, n); !slices.Equal(got, want) {
			t.Fatalf("step %d: x differs", step)
		}
		Free(y)
	}
	if d.pool.recycled() == 0 {
		t.Error("the pool gave no memory back to a result")
	}
	t.Logf("results computed into reused memory: %d", d.pool.recycled())
}

// A freed result's bytes go back to the pool once the last queued task
// reading it is done, and later results are computed into them: freed
// while an op reading it is still queued, the values stay right.
func TestEagerFreedResultsRecycled(t *testing.T) {
	const n = 1 << 15 // 128 KB of float32
	d := testDevice(t, "async")
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%11) - 5
	}
	x := upload(t, d, xs)
	mul := opID(t, d, "aten::mul.Tensor")
	whole := func(h Handle) []int64 { return tensorWords(h, 0, []int64{n}, []int64{1}) }
	sq, quad := make([]float32, n), make([]float32, n)
	for i, v := range xs {
		sq[i] = v * v
		quad[i] = sq[i] * sq[i]
	}
	for step := 0; step < 8; step++ {
		y := Handle(call(t, d, mul, append(whole(x), whole(x)...))[1]) // y = x·x
		z := Handle(call(t, d, mul, append(whole(y), whole(y)...))[1]) // z = y·y, queued
		Free(y)                                                        // before z's op has run
		w := Handle(call(t, d, mul, append(whole(x), whole(x)...))[1]) // w = x·x, into y's bytes once z's op is done
		if got := download(t, d, z, n); !slices.Equal(got, quad) {
			t.Fatalf("step %d: z = y·y differs", step)
		}
		if got := download(t, d, w, n); !slices.Equal(got, sq) {
			t.Fatalf("step %d: w = x·x differs", step)
		}
		Free(z)
		Free(w)
	}
	if got := d.pool.recycled(); got < 8 {
		t.Errorf("results computed into freed memory: %d, want at least 8", got)
	}
}
