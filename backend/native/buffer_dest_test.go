package native

import (
	"bytes"
	"context"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Results computed into the caller's memory (backend.WithResultBuffers):
// a fused result and a transpose returned through a reshape take theirs;
// a result returned twice takes the first one, and so does a result
// returned as it is and reshaped (the reshape views it); a constant (kept by the
// plan between runs) and an argument take none; and no run writes into
// the memory an earlier run was given. While a step may keep its results
// as folded weights, it takes none either.
func TestResultBuffers(t *testing.T) {
	src := `func.func @main(%a: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<4096xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<4096xf32>) {
  %0 = stablehlo.add %a, %a : tensor<64x64xf32>
  %1 = stablehlo.transpose %a, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %2 = stablehlo.reshape %1 : (tensor<64x64xf32>) -> tensor<4096xf32>
  %c = stablehlo.constant dense<1.5> : tensor<64x64xf32>
  %3 = stablehlo.multiply %a, %1 : tensor<64x64xf32>
  %4 = stablehlo.reshape %3 : (tensor<64x64xf32>) -> tensor<4096xf32>
  func.return %0, %2, %0, %c, %a, %3, %4 : tensor<64x64xf32>, tensor<4096xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<4096xf32>
}`
	m, err := stablehlo.ParseModule("dest.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := (&Backend{}).Compile(context.Background(), m, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := literal.New(dtype.F32, []int64{64, 64})
	for i := range a.Len() {
		a.SetFloat64(i, float64(i%97)-40)
	}
	const n = 64 * 64 * 4
	early := [][]byte{bytes.Repeat([]byte{0xA5}, n)}
	if _, err := exe.Run(backend.WithResultBuffers(context.Background(), early), []*literal.Literal{a}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(early[0], bytes.Repeat([]byte{0xA5}, n)) {
		t.Fatal("a step that may keep its result as a folded weight computed it into the caller's buffer")
	}
	// steps of arguments alone keep their results while they may be
	// weights (exec_weightfold.go): runs until they give up
	var ref []*literal.Literal
	for range weightFoldMaxMisses + 1 {
		if ref, err = exe.Run(context.Background(), []*literal.Literal{a}); err != nil {
			t.Fatal(err)
		}
	}
	fill := func() [][]byte {
		d := make([][]byte, 7)
		for i := range d {
			d[i] = bytes.Repeat([]byte{0xA5}, n)
		}
		return d
	}
	first := fill()
	was := make([][]byte, len(first))
	for run := 0; run < 3; run++ {
		dst := fill()
		if run == 0 {
			dst = first
		}
		res, err := exe.Run(backend.WithResultBuffers(context.Background(), dst), []*literal.Literal{a})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if !bytes.Equal(r.Data, ref[i].Data) {
				t.Fatalf("run %d: result %d differs from a run without buffers", run, i)
			}
		}
		in := func(r *literal.Literal, d []byte) bool { return unsafe.SliceData(r.Data) == unsafe.SliceData(d) }
		for i, want := range []bool{true, true, false, false, false, true, false} {
			if in(res[i], dst[i]) != want {
				t.Errorf("run %d: result %d in its buffer: %v, want %v", run, i, !want, want)
			}
		}
		if !in(res[2], dst[0]) {
			t.Errorf("run %d: result 2 (result 0 again) is not in result 0's buffer", run)
		}
		if !in(res[6], dst[5]) {
			t.Errorf("run %d: result 6 (result 5 reshaped) does not view result 5's buffer", run)
		}
		for _, i := range []int{2, 3, 4, 6} {
			if !bytes.Equal(dst[i], bytes.Repeat([]byte{0xA5}, n)) {
				t.Errorf("run %d: buffer %d, which no result took, was written", run, i)
			}
		}
		if run == 0 {
			for i := range first {
				was[i] = bytes.Clone(first[i])
			}
		} else {
			for i := range first {
				if !bytes.Equal(first[i], was[i]) {
					t.Fatalf("run %d wrote into buffer %d of run 0", run, i)
				}
			}
		}
	}
}

// A step with several returned values (a layer norm's row pipeline: its
// output and its two statistics) computes each into its result's memory,
// the two statistics of one size included (the pipeline asks for each
// value's own); no stage before the output, of its size, takes the
// output's.
func TestResultBuffersSeveralPerStep(t *testing.T) {
	src := `func.func @main(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x1xf32>, tensor<64x1xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<256.0> : tensor<64x1xf32>
  %e = stablehlo.constant dense<1.0e-5> : tensor<64x1xf32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<64xf32>
  %s1 = stablehlo.reshape %s : (tensor<64xf32>) -> tensor<64x1xf32>
  %m = stablehlo.divide %s1, %n : tensor<64x1xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x256xf32>
  %c = stablehlo.subtract %x, %mb : tensor<64x256xf32>
  %q = stablehlo.multiply %c, %c : tensor<64x256xf32>
  %v = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<64xf32>
  %v1 = stablehlo.reshape %v : (tensor<64xf32>) -> tensor<64x1xf32>
  %vm = stablehlo.divide %v1, %n : tensor<64x1xf32>
  %ve = stablehlo.add %vm, %e : tensor<64x1xf32>
  %r = stablehlo.rsqrt %ve : tensor<64x1xf32>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x256xf32>
  %y = stablehlo.multiply %c, %rb : tensor<64x256xf32>
  func.return %y, %m, %r : tensor<64x256xf32>, tensor<64x1xf32>, tensor<64x1xf32>
}`
	m, err := stablehlo.ParseModule("dest2.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := (&Backend{}).Compile(context.Background(), m, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := literal.New(dtype.F32, []int64{64, 256})
	for i := range x.Len() {
		x.SetFloat64(i, float64(i%89)*0.25-7)
	}
	var ref []*literal.Literal
	for range weightFoldMaxMisses + 1 { // past the folded-weight runs
		if ref, err = exe.Run(context.Background(), []*literal.Literal{x}); err != nil {
			t.Fatal(err)
		}
	}
	for run := 0; run < 2; run++ {
		dst := [][]byte{bytes.Repeat([]byte{0xA5}, 64*256*4), bytes.Repeat([]byte{0xA5}, 64*4), bytes.Repeat([]byte{0xA5}, 64*4)}
		res, err := exe.Run(backend.WithResultBuffers(context.Background(), dst), []*literal.Literal{x})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if !bytes.Equal(r.Data, ref[i].Data) {
				t.Fatalf("run %d: result %d differs from a run without buffers", run, i)
			}
		}
		in := func(r *literal.Literal, d []byte) bool { return unsafe.SliceData(r.Data) == unsafe.SliceData(d) }
		for i := range res {
			if !in(res[i], dst[i]) {
				t.Errorf("run %d: the pipeline's result %d is not in its buffer", run, i)
			}
		}
	}
}

// A fused result whose operands die at it (so that it could overwrite
// one) is computed into the caller's memory when given, as a training
// backward's tied embedding gradient, the weight's product plus the
// lookup's scatter, is: never into an operand's buffer and copied out.
func TestResultBufferBeforeInPlace(t *testing.T) {
	src := `func.func @main(%x: tensor<16x64xf32>, %w: tensor<16x32xf32>, %idx: tensor<4x5x1xi64>, %upd: tensor<4x5x32xf32>) -> tensor<64x32xf32> {
  %p = stablehlo.dot_general %x, %w, contracting_dims = [0] x [0] : (tensor<16x64xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
  %z = stablehlo.constant dense<0.0> : tensor<64x32xf32>
  %s = "stablehlo.scatter"(%z, %idx, %upd) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false} : (tensor<64x32xf32>, tensor<4x5x1xi64>, tensor<4x5x32xf32>) -> tensor<64x32xf32>
  %g = stablehlo.add %p, %s : tensor<64x32xf32>
  func.return %g : tensor<64x32xf32>
}`
	m, err := stablehlo.ParseModule("dest.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := (&Backend{}).Compile(context.Background(), m, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := literal.New(dtype.F32, []int64{16, 64})
	w, _ := literal.New(dtype.F32, []int64{16, 32})
	idx, _ := literal.New(dtype.I64, []int64{4, 5, 1})
	upd, _ := literal.New(dtype.F32, []int64{4, 5, 32})
	for _, l := range []*literal.Literal{x, w, upd} {
		for i := range l.Len() {
			l.SetFloat64(i, float64(i%13)-6.5)
		}
	}
	for i := range idx.Len() {
		idx.SetInt64(i, int64(i*7%64))
	}
	in := []*literal.Literal{x, w, idx, upd}
	ref, err := exe.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 3; run++ {
		dst := [][]byte{bytes.Repeat([]byte{0xA5}, 64*32*4)}
		res, err := exe.Run(backend.WithResultBuffers(context.Background(), dst), in)
		if err != nil {
			t.Fatal(err)
		}
		if unsafe.Pointer(&res[0].Data[0]) != unsafe.Pointer(&dst[0][0]) {
			t.Fatalf("run %d: the result was not computed into the caller's memory", run)
		}
		if !bytes.Equal(res[0].Data, ref[0].Data) {
			t.Fatalf("run %d: the result differs from a run without buffers", run)
		}
	}
}
