package capi

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

func fixture(t *testing.T, name string) ([]byte, *safetensors.File) {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "fixtures", "models")
	data, err := os.ReadFile(filepath.Join(dir, name+".pt2"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixture missing: %v", err)
		}
		t.Skipf("fixture missing: %v", err)
	}
	io, err := safetensors.Load(filepath.Join(dir, name+".io.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	return data, io
}

// loadFixture loads a model fixture through the ABI's Go side (freed
// when the test ends) and describes its recorded inputs.
func loadFixture(t *testing.T, name string) (Handle, []TensorDesc, *safetensors.File) {
	t.Helper()
	data, io := fixture(t, name)
	h, err := LoadHandle(data, []byte(`{"cache_dir": "-"}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Free(h) })
	var ins []TensorDesc
	for _, l := range io.Inputs() {
		ins = append(ins, desc(l))
	}
	return h, ins, io
}

func desc(l *literal.Literal) TensorDesc {
	code, _ := l.DType.ScalarType()
	d := TensorDesc{DType: code, Shape: l.Shape, Extent: int64(len(l.Data))}
	if len(l.Data) > 0 {
		d.Data = unsafe.Pointer(&l.Data[0])
	}
	return d
}

// TestRunFixture loads a model fixture from bytes through the ABI's Go
// side, runs it on its inputs and compares with PyTorch's outputs.
func TestRunFixture(t *testing.T) {
	h, ins, io := loadFixture(t, "mlp")
	res, err := Run(context.Background(), h, ins)
	if err != nil {
		t.Fatal(err)
	}
	metas, err := Describe(res)
	if err != nil {
		t.Fatal(err)
	}
	want := io.Outputs()
	if len(metas) != len(want) {
		t.Fatalf("%d outputs, want %d", len(metas), len(want))
	}
	for i, w := range want {
		got := &literal.Literal{DType: w.DType, Shape: metas[i].Shape, Data: make([]byte, len(w.Data))}
		if err := CopyOut(res, i, unsafe.Pointer(&got.Data[0]), int64(len(got.Data))); err != nil {
			t.Fatal(err)
		}
		c := runtime.Compare(got, w, runtime.DefaultTolerance(w.DType))
		if !c.OK {
			t.Fatalf("output %d: %s (max abs %g)", i, c.Detail, c.MaxAbs)
		}
	}
	if err := Free(res); err != nil {
		t.Fatal(err)
	}
	if err := Free(res); err == nil || !strings.Contains(err.Error(), "already freed") {
		t.Fatalf("double free: %v", err)
	}
	js, err := InfoJSON(h)
	if err != nil || !json.Valid(js) {
		t.Fatalf("info: %v %s", err, js)
	}
	js, err = MetricsJSON(h)
	if err != nil || !strings.Contains(string(js), `"runs":1`) {
		t.Fatalf("metrics: %v %s", err, js)
	}
}

func TestHandlesAreChecked(t *testing.T) {
	if _, err := get[*Program](0, "program"); err == nil || !strings.Contains(err.Error(), "null") {
		t.Fatal(err)
	}
	h := put(&Result{})
	if _, err := get[*Program](h, "program"); err == nil || !strings.Contains(err.Error(), "is a result, not a program") {
		t.Fatal(err)
	}
	if _, err := get[*Program](h+1000, "program"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatal(err)
	}
	if err := Free(h); err != nil {
		t.Fatal(err)
	}
	if _, err := Describe(h); err == nil || !strings.Contains(err.Error(), "already freed") {
		t.Fatal(err)
	}
}

func TestGuardRecoversPanics(t *testing.T) {
	err := Guard("tt_x", func() error {
		var m map[string]int
		m["a"] = 1 // a nil-map write panics
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "tt_x: internal error") || !strings.Contains(err.Error(), "capi_test.go") {
		t.Fatalf("got %v", err)
	}
	err = Guard("tt_y", func() error { return errors.New("plain") })
	if err == nil || err.Error() != "tt_y: plain" {
		t.Fatalf("got %v", err)
	}
}

func TestTensorDescChecks(t *testing.T) {
	buf := make([]float32, 6)
	p := unsafe.Pointer(&buf[0])
	cases := []struct {
		d    TensorDesc
		want string
	}{
		{TensorDesc{Data: p, Extent: 24, DType: 6, Shape: []int64{2, 3}}, ""},
		{TensorDesc{Data: p, Extent: 24, DType: 6, Shape: []int64{3, 2}, Strides: []int64{1, 3}}, ""},
		{TensorDesc{Data: p, Extent: 20, DType: 6, Shape: []int64{2, 3}}, "past the 20 bytes"},
		{TensorDesc{Data: p, Extent: 24, DType: 6, Shape: []int64{2, 3}, Strides: []int64{3}}, "1 strides for 2 dims"},
		{TensorDesc{Data: p, Extent: 24, DType: 6, Shape: []int64{2, 3}, Strides: []int64{-3, 1}}, "negative stride"},
		{TensorDesc{Data: p, Extent: 24, DType: 6, Shape: []int64{2, 3}, Strides: []int64{1 << 62, 1}}, "overflow"},
		{TensorDesc{Data: p, Extent: 24, DType: 6, Shape: []int64{-1, 3}}, "negative dimension"},
		{TensorDesc{Data: nil, Extent: 24, DType: 6, Shape: []int64{2, 3}}, "null data"},
		{TensorDesc{Data: p, Extent: -1, DType: 6, Shape: []int64{2, 3}}, "negative byte extent"},
		{TensorDesc{Data: p, Extent: 24, DType: 8, Shape: []int64{2, 3}}, "dtype code 8"},
		{TensorDesc{Data: nil, Extent: 0, DType: 6, Shape: []int64{0, 3}}, ""},
	}
	for i, c := range cases {
		_, err := c.d.Literal()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: got %v, want %q", i, err, c.want)
		}
	}
	// A transposed view gathers into row-major order.
	for i := range buf {
		buf[i] = float32(i)
	}
	l, err := (&TensorDesc{Data: p, Extent: 24, DType: 6, Shape: []int64{3, 2}, Strides: []int64{1, 3}}).Literal()
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{0, 3, 1, 4, 2, 5}
	for i, w := range want {
		if got := l.Float64(i); got != float64(w) {
			t.Fatalf("element %d = %v, want %v", i, got, w)
		}
	}
}

func TestOptions(t *testing.T) {
	for _, js := range []string{`{"devise": "cpu"}`, `{"fallback": "gpu"}`, `{"buckets": "pow3"}`, `{"bucket_sizes": [0]}`, `{"cache_max_mb": -1}`, `{} x`} {
		o, err := ParseOptions([]byte(js))
		if err == nil {
			_, err = o.runtimeOptions()
		}
		if err == nil {
			t.Errorf("%s: no error", js)
		}
	}
	if _, err := Load([]byte("nope"), Options{}); err == nil || !strings.Contains(err.Error(), "read archive") {
		t.Fatal(err)
	}
}
