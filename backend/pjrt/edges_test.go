package pjrt

import (
	"testing"

	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

func TestEdgesRoundTrip(t *testing.T) {
	e := &legalize.Edges{Args: []dtype.DType{dtype.Invalid, dtype.I4}, Results: []dtype.DType{dtype.F6E2M3FN}}
	got, err := parseEdges(formatEdges(e))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Args) != 2 || got.Args[1] != dtype.I4 || len(got.Results) != 1 || got.Results[0] != dtype.F6E2M3FN {
		t.Fatalf("edges %q parsed back as %+v", formatEdges(e), got)
	}
	if g, err := parseEdges("-"); err != nil || g != nil {
		t.Fatalf("no edges: %v, %v", g, err)
	}
	for _, bad := range []string{"x1r2", "a1,zr", "a1", "a-1r"} {
		if _, err := parseEdges(bad); err == nil {
			t.Errorf("edges %q parsed without error", bad)
		}
	}
}

func TestEdgesConvertExactly(t *testing.T) {
	i4, _ := literal.New(dtype.I4, []int64{3})
	for i, v := range []int64{-8, 7, -1} {
		i4.SetInt64(i, v)
	}
	e := &legalize.Edges{Args: []dtype.DType{dtype.I4}, Results: []dtype.DType{dtype.F6E2M3FN}}
	dev, err := edgesToDevice(e, []*literal.Literal{i4})
	if err != nil || dev[0].DType != dtype.I8 || dev[0].Int64(0) != -8 || dev[0].Int64(1) != 7 {
		t.Fatalf("i4 to the device: %v, %v", dev, err)
	}
	f, _ := literal.New(dtype.F32, []int64{2})
	f.SetFloat64(0, 7.5)
	f.SetFloat64(1, -0.125)
	host, err := edgesToHost(e, []*literal.Literal{f})
	if err != nil || host[0].DType != dtype.F6E2M3FN || host[0].Float64(0) != 7.5 || host[0].Float64(1) != -0.125 {
		t.Fatalf("f32 back to f6E2M3FN: %v, %v", host, err)
	}
	if _, err := edgesToDevice(e, []*literal.Literal{f}); err == nil {
		t.Error("an f32 argument where i4 is due converted without error")
	}
}
