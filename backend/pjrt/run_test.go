//go:build cgo

package pjrt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// echoModule returns its arguments; the fake plugin's executables do the
// same, so a run through the fake device can be checked exactly.
const echoModule = `func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>) {
  return %arg0, %arg1 : tensor<2x3xf32>, tensor<i32>
}`

func fakeLog(t *testing.T) func(what string) int { return pjrttest.CallLog(t) }

func parse(t *testing.T, src string) *stablehlo.Module {
	t.Helper()
	m, err := stablehlo.ParseModule("echo.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func echoArgs(t *testing.T) []*literal.Literal {
	t.Helper()
	a, err := literal.New(dtype.F32, []int64{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		a.SetFloat64(i, float64(i)+0.5)
	}
	b, err := literal.New(dtype.I32, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.SetInt64(0, -7)
	return []*literal.Literal{a, b}
}

func checkEcho(t *testing.T, args, outs []*literal.Literal) {
	t.Helper()
	if len(outs) != len(args) {
		t.Fatalf("%d outputs, want %d", len(outs), len(args))
	}
	for i := range args {
		if outs[i].DType != args[i].DType || !equalShape(outs[i].Shape, args[i].Shape) || !bytes.Equal(outs[i].Data, args[i].Data) {
			t.Errorf("output %d = %v %v, want %v %v", i, outs[i], outs[i].Data, args[i], args[i].Data)
		}
	}
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func openFake(t *testing.T, name string) *Backend {
	t.Helper()
	b, err := Open("xla-cpu", buildFake(t, name), 0)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return b
}

func TestOneClientPerPlugin(t *testing.T) {
	count := fakeLog(t)
	t.Setenv("FAKE_PJRT_DEVICES", "2")
	path := buildFake(t, "pjrt_c_api_cpu_plugin.so")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", filepath.Dir(path))
	var wg sync.WaitGroup
	got := make([]backend.Backend, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "xla-cpu"
			if i%2 == 1 {
				name = "xla-cpu:1"
			}
			got[i], errs[i] = backend.Open(name)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("backend.Open #%d: %v", i, err)
		}
	}
	direct, err := Open("xla-cpu", path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != backend.Backend(direct) || got[2] != got[0] || got[1] != got[3] || got[1] == got[0] {
		t.Errorf("Open does not return one backend per device: %p %p %p %p direct %p", got[0], got[1], got[2], got[3], direct)
	}
	if b1 := got[1].(*Backend); b1.shared != direct.shared || b1.Name() != "xla-cpu:1" {
		t.Errorf("device 1 does not share device 0's client (or is misnamed %q)", b1.Name())
	}
	if n := count("client_create"); n != 1 {
		t.Errorf("%d PJRT_Client_Create calls, want 1", n)
	}
	if _, err := Open("xla-cpu", path, 2); err == nil || !strings.Contains(err.Error(), "device 2 out of range (the plugin has 2)") {
		t.Errorf("ordinal 2: %v", err)
	}
	if n := count("client_create"); n != 1 {
		t.Errorf("a bad ordinal made a client: %d creations", n)
	}
	if d := direct.Devices(); len(d) != 2 || !strings.Contains(d[1], "xla-cpu:1 FakeDevice(id=1)") {
		t.Errorf("Devices: %q", d)
	}
	if v := direct.Version(); v != "pjrt-0.70/stablehlo-unknown/fake/fake-1" {
		t.Errorf("Version: %q", v)
	}
}

// A failed client creation is not remembered: once the plugin can make a
// client, Open succeeds.
func TestClientCreationRetried(t *testing.T) {
	count := fakeLog(t)
	path := buildFake(t, "retry_cpu.so")
	t.Setenv("FAKE_PJRT_DEVICES", "0")
	if _, err := Open("xla-cpu", path, 0); err == nil || !strings.Contains(err.Error(), "fake plugin has no devices") {
		t.Fatalf("first Open: %v", err)
	}
	t.Setenv("FAKE_PJRT_DEVICES", "1")
	if _, err := Open("xla-cpu", path, 0); err != nil {
		t.Fatalf("second Open: %v", err)
	}
	if n := count("client_create"); n != 1 {
		t.Errorf("%d clients created, want 1", n)
	}
}

func TestRunEndToEnd(t *testing.T) {
	count := fakeLog(t)
	b := openFake(t, "e2e_cpu.so")
	ctx := context.Background()
	exe, err := b.Compile(ctx, parse(t, echoModule), backend.Options{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	args := echoArgs(t)
	for i := 0; i < 3; i++ {
		outs, err := exe.Run(ctx, args)
		if err != nil {
			t.Fatalf("Run %d: %v", i, err)
		}
		checkEcho(t, args, outs)
	}
	// 2 inputs and 2 outputs per run, all released.
	if c, d := count("buffer_create"), count("buffer_destroy"); c != 12 || d != 12 {
		t.Errorf("buffers: %d created, %d destroyed; want 12 and 12", c, d)
	}
	if n := count("execute"); n != 3 {
		t.Errorf("%d executions, want 3", n)
	}
	if n := count("donate 0") + count("donate 1"); n != 0 {
		t.Errorf("%d inputs donated by a program that marks none", n)
	}
}

func TestRunConcurrent(t *testing.T) {
	b := openFake(t, "conc_cpu.so")
	t.Setenv("FAKE_PJRT_DELAY_MS", "5")
	ctx := context.Background()
	exe, err := b.Compile(ctx, parse(t, echoModule), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := echoArgs(t)
			args[1].SetInt64(0, int64(g))
			for i := 0; i < 5; i++ {
				outs, err := exe.Run(ctx, args)
				if err != nil {
					t.Error(err)
					return
				}
				checkEcho(t, args, outs)
			}
		}()
	}
	wg.Wait()
}

func TestRunErrors(t *testing.T) {
	count := fakeLog(t)
	b := openFake(t, "errors_cpu.so")
	ctx := context.Background()
	exe, err := b.Compile(ctx, parse(t, echoModule), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	args := echoArgs(t)
	cases := []struct{ fail, want string }{
		{"execute", "pjrt xla-cpu: execute: PJRT error (code=13): fake execute failure"},
		{"event", "pjrt xla-cpu: execute: PJRT error (code=13): fake device fault"},
		{"transfer", "pjrt xla-cpu: argument 0 (f32[2 3]): copy to xla-cpu: PJRT error (code=13): fake transfer failure"},
		{"tohost", "pjrt xla-cpu: output 0: copy to host: PJRT error (code=13): fake device-to-host failure"},
		{"outsize", "output 0: copy to host: PJRT error (code=3): fake plugin: host buffer of 24 bytes is too small for 32"},
		{"nullout", "pjrt xla-cpu: output 0: the plugin returned no buffer"},
	}
	for _, c := range cases {
		t.Setenv("FAKE_PJRT_FAIL", c.fail)
		c0, d0 := count("buffer_create"), count("buffer_destroy")
		outs, err := exe.Run(ctx, args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, %v; want an error containing %q", c.fail, outs, err, c.want)
		}
		created, destroyed := count("buffer_create")-c0, count("buffer_destroy")-d0
		if created != destroyed {
			t.Errorf("%s: %d buffers created, %d destroyed", c.fail, created, destroyed)
		}
	}
	t.Setenv("FAKE_PJRT_FAIL", "")
	// The executable still works after failures.
	outs, err := exe.Run(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	checkEcho(t, args, outs)
	if _, err := exe.Run(ctx, args[:1]); err == nil || !strings.Contains(err.Error(), "takes 2 arguments, got 1") {
		t.Errorf("wrong argument count: %v", err)
	}
	bad, err := literal.New(dtype.Invalid, nil)
	if err == nil {
		if _, err := exe.Run(ctx, []*literal.Literal{bad, args[1]}); err == nil {
			t.Error("an untransferable element type was accepted")
		}
	}
	t.Setenv("FAKE_PJRT_FAIL", "compile")
	if _, err := b.Compile(ctx, parse(t, echoModule), backend.Options{}); err == nil || !strings.Contains(err.Error(), "fake compile failure") {
		t.Errorf("compile failure: %v", err)
	}
	t.Setenv("FAKE_PJRT_FAIL", "")
	if _, err := b.Compile(ctx, parse(t, echoModule), backend.Options{Replicas: 2}); !errors.Is(err, backend.ErrNotImplemented) ||
		!strings.Contains(err.Error(), "need 2 devices, the client has 1") {
		t.Errorf("2 replicas: %v", err)
	}
	if _, err := b.Compile(ctx, parse(t, echoModule), backend.Options{Entry: "other"}); !errors.Is(err, backend.ErrNotImplemented) {
		t.Errorf("entry other: %v", err)
	}
}

func TestRunAsync(t *testing.T) {
	b := openFake(t, "async_cpu.so")
	ctx := context.Background()
	e, err := b.Compile(ctx, parse(t, echoModule), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exe := e.(*executable)
	args := echoArgs(t)
	t.Setenv("FAKE_PJRT_DELAY_MS", "400")
	start := time.Now()
	p, err := exe.RunAsync(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Errorf("RunAsync took %v: it waited for the execution", d)
	}
	select {
	case <-p.Done():
		t.Error("the run is done before its completion event fired")
	default:
	}
	outs, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("Wait returned after %v, before the completion event (400ms)", d)
	}
	checkEcho(t, args, outs)

	// A cancelled wait returns at once; the run completes on its own.
	count := fakeLog(t)
	p, err = exe.RunAsync(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := p.Wait(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled Wait: %v", err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("cancelled Wait took %v", d)
	}
	if _, err := exe.Run(cctx, args); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run with a dead context: %v", err)
	}
	<-p.Done()
	if c, d := count("buffer_create"), count("buffer_destroy"); c != 4 || d != 4 {
		t.Errorf("abandoned run: %d buffers created, %d destroyed; want 4 and 4", c, d)
	}

	// Nor does RunAsync wait for the plugin to be done with the host
	// copies of the inputs.
	t.Setenv("FAKE_PJRT_DELAY_MS", "0")
	t.Setenv("FAKE_PJRT_TRANSFER_DELAY_MS", "400")
	start = time.Now()
	p, err = exe.RunAsync(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Errorf("RunAsync took %v: it waited for the transfers", d)
	}
	outs, err = p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkEcho(t, args, outs)
	t.Setenv("FAKE_PJRT_TRANSFER_DELAY_MS", "0")

	// A context that ends before the execution is enqueued stops the run.
	t.Setenv("FAKE_PJRT_DELAY_MS", "0")
	dead, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := exe.RunAsync(dead, args); !errors.Is(err, context.Canceled) {
		t.Errorf("RunAsync on a cancelled context: %v", err)
	}
}

const donorModule = `func.func @main(%arg0: tensor<2x3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<i32> {jax.buffer_donor = true}, %arg2: tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>, tensor<i32>) {
  return %arg0, %arg1, %arg2 : tensor<2x3xf32>, tensor<i32>, tensor<i32>
}`

func TestDonation(t *testing.T) {
	m := parse(t, donorModule)
	if d := Donatable(m.Func("main")); len(d) != 3 || !d[0] || !d[1] || d[2] {
		t.Fatalf("Donatable = %v, want [true true false]", d)
	}
	count := fakeLog(t)
	b := openFake(t, "donate_cpu.so")
	ctx := context.Background()
	exe, err := b.Compile(ctx, m, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	args := echoArgs(t)
	c, _ := literal.New(dtype.I32, nil)
	c.SetInt64(0, 42)
	args = append(args, c)
	outs, err := exe.Run(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	checkEcho(t, args, outs)
	if count("donate 0") != 1 || count("donate 1") != 1 || count("donate 2") != 0 {
		t.Errorf("donated: arg0 %d, arg1 %d, arg2 %d times; want 1, 1, 0", count("donate 0"), count("donate 1"), count("donate 2"))
	}
	if cr, d := count("buffer_create"), count("buffer_destroy"); cr != d || cr != 6 {
		t.Errorf("buffers: %d created, %d destroyed; want 6 and 6", cr, d)
	}
	// The host arguments are untouched: a second run gives the same.
	outs, err = exe.Run(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	checkEcho(t, args, outs)
}

func TestSerializeRoundTrip(t *testing.T) {
	count := fakeLog(t)
	b := openFake(t, "serial_cpu.so")
	ctx := context.Background()
	e, err := b.Compile(ctx, parse(t, donorModule), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	blob, err := e.(*executable).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	if want := serialMagic + "3 3 d110\nFAKEPJRT1\n"; !strings.HasPrefix(string(blob), want) || !strings.Contains(string(blob), "@main(") {
		t.Fatalf("serialized form %q, want it to start %q and hold the module", blob, want)
	}
	loaded, err := b.Deserialize(ctx, blob)
	if err != nil {
		t.Fatalf("Deserialize: %v", err)
	}
	args := echoArgs(t)
	c, _ := literal.New(dtype.I32, nil)
	args = append(args, c)
	outs, err := loaded.Run(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	checkEcho(t, args, outs)
	if count("compile") != 1 || count("deserialize") != 1 || count("donate 0") != 1 || count("donate 2") != 0 {
		t.Errorf("compiles %d, loads %d, donations of arg0 %d and arg2 %d; want 1, 1, 1, 0",
			count("compile"), count("deserialize"), count("donate 0"), count("donate 2"))
	}
	if again, err := loaded.(*executable).Serialize(); err != nil || !bytes.Equal(again, blob) {
		t.Errorf("re-serialized: %v, equal %v", err, bytes.Equal(again, blob))
	}

	bad := []struct {
		name string
		blob []byte
		want string
	}{
		{"empty", nil, "not a serialized torchtpu executable"},
		{"no header", []byte("FAKEPJRT1\nmodule{}"), "not a serialized torchtpu executable"},
		{"bad donate", []byte(serialMagic + "3 3 d11\nFAKEPJRT1\n"), "not a serialized torchtpu executable"},
		{"plugin refuses", []byte(serialMagic + "0 0 d\ngarbage"), "deserialize: PJRT error (code=3): fake plugin: not a serialized fake executable"},
		{"outputs differ", []byte(serialMagic + "1 1 d0\nFAKEPJRT1\nfunc.func @main() -> () {}"), "has 0 outputs, its header says 1"},
	}
	for _, c := range bad {
		if _, err := b.Deserialize(ctx, c.blob); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	t.Setenv("FAKE_PJRT_FAIL", "serialize")
	if _, err := e.(*executable).Serialize(); err == nil || !strings.Contains(err.Error(), "serialize: PJRT error (code=12): fake plugin: serialization not supported") {
		t.Errorf("refused serialization: %v", err)
	}
}

// The handles read from the binding's objects by reflection are there
// (a gopjrt upgrade that moves them fails here, not at run time).
func TestBindingHandles(t *testing.T) {
	b := openFake(t, "handles_cpu.so")
	if b.shared.raw == nil || b.rawDevice == nil {
		t.Fatal("nil client or device handle")
	}
	if _, err := handleOf(b.shared.client, "client", "nope"); err == nil || !strings.Contains(err.Error(), "has no field nope") {
		t.Errorf("missing field: %v", err)
	}
	if _, err := handleOf(b.shared.client, "platform"); err == nil || !strings.Contains(err.Error(), "not a C handle") {
		t.Errorf("non-pointer field: %v", err)
	}
}

var optRuns int

func TestClientOptions(t *testing.T) {
	count := fakeLog(t)
	path := buildFake(t, "opts_cpu.so")
	optRuns++ // the client of a kind is made once per process: a new kind per run
	kind := fmt.Sprintf("optkind%d", optRuns)
	t.Setenv(OptionsEnv, kind+":n=3;other:skip=1;flag=true;"+kind+":ids=[4,5]")
	if err := SetClientOptions(kind, map[string]any{"name": "fast", "n": int64(9), "f": float32(0.25)}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(kind, path, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"option n=9", "option flag=true", "option ids=list of 2, last 5", "option name=fast", "option f=0.25"} {
		if count(want) != 1 {
			t.Errorf("the plugin did not get %q", want)
		}
	}
	if count("option skip=1") != 0 {
		t.Error("an option scoped to another kind was passed")
	}
	if err := SetClientOptions(kind, nil); err == nil || !strings.Contains(err.Error(), "the client exists already") {
		t.Errorf("options after creation: %v", err)
	}
	t.Setenv(OptionsEnv, "bad")
	if _, err := Open("optkind2", path, 0); err != nil {
		t.Errorf("the plugin's client exists: options are not read again, got %v", err)
	}
	other := buildFake(t, "opts2_cpu.so")
	if _, err := Open("optkind3", other, 0); err == nil || !strings.Contains(err.Error(), "TORCHTPU_PJRT_OPTIONS: option \"bad\"") {
		t.Errorf("bad options: %v", err)
	}
}

// A compile cannot be interrupted: a cancelled context returns at once and
// the executable that arrives later is destroyed.
func TestCompileCancelled(t *testing.T) {
	count := fakeLog(t)
	b := openFake(t, "cancel_cpu.so")
	t.Setenv("FAKE_PJRT_COMPILE_DELAY_MS", "300")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	m := parse(t, `func.func @main(%arg0: tensor<17xf32>) -> tensor<17xf32> {
  return %arg0 : tensor<17xf32>
}`)
	var text strings.Builder
	if err := stablehlo.Print(&text, m); err != nil {
		t.Fatal(err)
	}
	// Executables of other tests may be collected (and logged) meanwhile:
	// this one is known by its size.
	destroyed := fmt.Sprintf("exe_destroy %d", text.Len())
	start := time.Now()
	if _, err := b.Compile(ctx, m, backend.Options{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Compile: %v", err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("a cancelled Compile took %v", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for count(destroyed) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if count("compile") != 1 || count(destroyed) != 1 {
		t.Errorf("compiles %d, destroyed executables %d; want 1 and 1", count("compile"), count(destroyed))
	}
}

// The element type codes passed to the plugin are PJRT_Buffer_Type's.
func TestBufferTypesMatchHeader(t *testing.T) {
	src, err := os.ReadFile("include/pjrt_c_api.h")
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	body = body[strings.Index(body, "typedef enum {\n  // Invalid primitive type"):]
	body = body[:strings.Index(body, "} PJRT_Buffer_Type;")]
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*PJRT_Buffer_Type_(\w+),`).FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	want := map[dtype.DType]string{
		dtype.Bool: "PRED", dtype.I8: "S8", dtype.I16: "S16", dtype.I32: "S32", dtype.I64: "S64",
		dtype.U8: "U8", dtype.U16: "U16", dtype.U32: "U32", dtype.U64: "U64", dtype.F16: "F16",
		dtype.BF16: "BF16", dtype.F32: "F32", dtype.F64: "F64", dtype.C64: "C64", dtype.C128: "C128",
		dtype.F8E5M2: "F8E5M2", dtype.F8E4M3FN: "F8E4M3FN",
	}
	for _, p := range dtypePairs {
		code := int(p.pj)
		if code >= len(names) || names[code] != want[p.ours] {
			t.Errorf("%v is sent as %d, which the header calls %v, not %s", p.ours, code, names[min(code, len(names)-1)], want[p.ours])
		}
	}
}
