package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The worker runs cases in its own process, through the code paths of
// the CLI, and recovers nothing: a panic or fatal error ends the process,
// and the parent counts it. Panics that the packages themselves turn into
// errors (the runtime per node, the native backend per process and per
// test) are recognised by their messages and counted as panics too.

// request is one case for a worker.
type request struct {
	ID      int
	Kind    string // "pt2", "safetensors", "mlir"
	Program string // the .pt2 or .mlir file
	Inputs  string // the safetensors file of inputs ("" for the archive's sample inputs)
}

// reply is a worker's verdict on a case.
type reply struct {
	ID      int
	Outcome string // "ok", "error", "panic" (a recovered one: see panicMarkers)
	Stage   string // where it ended: load, prepare, inputs, run, output; parse, verify, test
	Msg     string
	Seconds float64
}

// panicMarkers are the messages of the errors that the runtime and the
// native backend make of a recovered panic.
var panicMarkers = []string{"internal error: ", "panicked: ", "panic: "}

func isRecoveredPanic(msg string) bool {
	for _, m := range panicMarkers {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// worker reads requests (one JSON object a line) on stdin and writes
// replies on file descriptor 3, until stdin closes.
func worker(caseTimeout time.Duration, cacheDir string) error {
	out := os.NewFile(3, "replies")
	if out == nil {
		return fmt.Errorf("worker: no reply pipe on fd 3")
	}
	enc := json.NewEncoder(out)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return fmt.Errorf("worker: bad request: %w", err)
		}
		start := time.Now()
		rep := runCase(req, caseTimeout, cacheDir)
		rep.ID, rep.Seconds = req.ID, time.Since(start).Seconds()
		if rep.Outcome == "error" && isRecoveredPanic(rep.Msg) {
			rep.Outcome = "panic"
		}
		if len(rep.Msg) > 600 {
			rep.Msg = rep.Msg[:600] + "..."
		}
		if err := enc.Encode(rep); err != nil {
			return err
		}
	}
	return in.Err()
}

func runCase(req request, timeout time.Duration, cacheDir string) reply {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	switch req.Kind {
	case "pt2", "safetensors":
		return runArchive(ctx, req.Program, req.Inputs, cacheDir)
	case "mlir":
		return runStablehlo(ctx, req.Program, timeout)
	}
	return reply{Outcome: "error", Stage: "harness", Msg: "unknown kind " + req.Kind}
}

func fail(stage string, err error) reply {
	return reply{Outcome: "error", Stage: stage, Msg: err.Error()}
}

// runArchive is `torchtpu run ARCHIVE [--inputs INPUTS] --out OUT`
// (cmd/torchtpu/cmd_run.go), in process: load, prepare for the cpu
// device with the CLI's cache settings, read the inputs, run, print and
// write the outputs.
func runArchive(ctx context.Context, archive, inputs, cacheDir string) reply {
	p, err := pt2.Load(archive)
	if err != nil {
		return fail("load", err)
	}
	prog, err := runtime.FromPT2(p, "cpu")
	if err != nil {
		return fail("prepare", err)
	}
	if err := prog.Configure(runtime.Options{CacheDir: cacheDir, CacheMaxBytes: 1 << 30, Fallback: "cpu", Log: io.Discard}); err != nil {
		return fail("prepare", err)
	}
	var ins []*literal.Literal
	if inputs == "" {
		if p.SampleInputs == nil {
			return fail("inputs", fmt.Errorf("the archive has no sample inputs"))
		}
		for _, l := range p.SampleInputs {
			if l != nil {
				ins = append(ins, l)
			}
		}
	} else {
		f, err := safetensors.LoadOnly(inputs, safetensors.IsInput)
		if err != nil {
			return fail("inputs", err)
		}
		ins = f.Inputs()
	}
	outs, _, err := prog.Run(ctx, ins)
	if err != nil {
		return fail("run", err)
	}
	named := map[string]*literal.Literal{}
	for i, o := range outs {
		if o != nil {
			_ = runtime.Format(o, 3)
			named[fmt.Sprintf("output.%d", i)] = o
		}
	}
	if err := safetensors.Write(io.Discard, named, nil); err != nil {
		return fail("output", err)
	}
	return reply{Outcome: "ok"}
}

// runStablehlo is `torchtpu stablehlo run FILE` (cmd_stablehlo_run.go) on
// the cpu device: parse, verify, run every test, check.
func runStablehlo(ctx context.Context, path string, timeout time.Duration) reply {
	if rep, ok := legalizeStage(ctx, path); !ok {
		return rep
	}
	r := native.RunFile(ctx, path, native.RunOptions{Timeout: timeout})
	if r.Err != nil {
		stage := "parse"
		if strings.HasPrefix(r.Err.Error(), "verify: ") {
			stage = "verify"
		}
		return fail(stage, r.Err)
	}
	for _, f := range r.Funcs {
		if f.Err != nil {
			if isRecoveredPanic(f.Err.Error()) {
				return reply{Outcome: "panic", Stage: "test", Msg: f.Name + ": " + f.Err.Error()}
			}
		}
	}
	if !r.Passed() {
		return fail("test", r.FirstError())
	}
	return reply{Outcome: "ok"}
}

// legalizeStage runs each module of the file through the PJRT
// backend's legalization pipeline for xla-cpu (backend/pjrt/legalize:
// refinement at a batch of 3, the padding check, every rewrite), as a
// PJRT device would before compiling: a panic there ends the worker; an
// error is a bad file's expected answer and the case goes on to the
// native run. ok is false when the case ends here.
func legalizeStage(ctx context.Context, path string) (reply, bool) {
	src, err := os.ReadFile(path)
	if err != nil {
		return fail("legalize", err), false
	}
	mods, err := stablehlo.Parse(path, src)
	if err != nil {
		return reply{}, true // the native run reports the parse error
	}
	target := legalize.TargetFor("xla-cpu")
	for _, m := range mods {
		if m.Func("main") == nil || stablehlo.Verify(m) != nil {
			continue
		}
		_ = legalize.Exercise(ctx, m, target, 3)
	}
	return reply{}, true
}
