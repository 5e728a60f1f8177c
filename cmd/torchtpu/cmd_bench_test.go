package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

func TestBenchJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch(context.Background(), []string{"bench", "../../examples/mlp.pt2", "--runs", "3", "--warmup", "1", "--threads", "1", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r map[string]any
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out.String())
	}
	for _, k := range []string{"median_ms", "p90_ms", "compile_ms", "peak_rss_mb", "first_run_ms"} {
		v, ok := r[k].(float64)
		if !ok || v < 0 {
			t.Errorf("%s = %v, want a number >= 0", k, r[k])
		}
	}
	// The memory bar's figures: mlp has 268 bytes of weights and, at its
	// sample input f32[2,4], a peak of two f32[2,8] values live at once.
	if w := r["weights_mb"].(float64) * (1 << 20); w != 268 {
		t.Errorf("weights %v bytes, want 268", w)
	}
	if a := r["activations_mb"].(float64) * (1 << 20); a != 128 {
		t.Errorf("activations %v bytes, want 128", a)
	}
	if peak := r["peak_rss_mb"].(float64); peak > 0 {
		want := peak / (r["weights_mb"].(float64) + r["activations_mb"].(float64))
		if got := r["mem_ratio"].(float64); math.Abs(got-want) > 1e-9*want {
			t.Errorf("mem_ratio %v, want peak_rss / (weights + activations) = %v", got, want)
		}
	}
	if r["median_ms"].(float64) > r["p90_ms"].(float64) {
		t.Errorf("median %v > p90 %v", r["median_ms"], r["p90_ms"])
	}
}

func TestBenchBadArgs(t *testing.T) {
	for _, args := range [][]string{{"bench"}, {"bench", "x.pt2", "--runs", "0"}, {"bench", "/nonexistent.pt2"}} {
		var out, errb bytes.Buffer
		if code := dispatch(context.Background(), args, &out, &errb); code == 0 {
			t.Errorf("%v: exit 0, want an error", args)
		}
	}
	var out, errb bytes.Buffer
	dispatch(context.Background(), []string{"bench", "-h"}, &out, &errb)
	if !strings.Contains(errb.String()+out.String(), "median") {
		t.Errorf("bench -h does not explain the figures:\n%s", errb.String())
	}
}

func TestBenchSummarize(t *testing.T) {
	r := benchResult{CompileEstimate: true}
	r.FirstRunMS = 50
	benchSummarize(&r, []float64{5, 1, 4, 2, 3, 10, 6, 7, 8, 9})
	if r.MedianMS != 5.5 || r.P90MS != 9 || r.MinMS != 1 || r.CompileMS != 44.5 {
		t.Fatalf("median %v p90 %v min %v compile %v", r.MedianMS, r.P90MS, r.MinMS, r.CompileMS)
	}
}

// TestBenchOutputBuffers: the buffers bench runs into have each output's
// size, and none stands for an output with no bytes.
func TestBenchOutputBuffers(t *testing.T) {
	outs := []*literal.Literal{
		{DType: dtype.F32, Shape: []int64{2, 3}, Data: make([]byte, 24)},
		{DType: dtype.F32, Shape: []int64{0}},
		nil,
	}
	dst := outputBuffers(outs)
	if len(dst) != 3 || len(dst[0]) != 24 || dst[1] != nil || dst[2] != nil {
		t.Fatalf("buffers %d long: %v", len(dst), []int{len(dst[0]), len(dst[1]), len(dst[2])})
	}
}
