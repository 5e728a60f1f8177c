package main

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary a stand-in worker when MUTATE_TEST_WORKER
// says how it should misbehave, so that the harness's detection of
// panics, fatal errors and hangs is tested on real processes.
func TestMain(m *testing.M) {
	switch os.Getenv("MUTATE_TEST_WORKER") {
	case "":
		os.Exit(m.Run())
	case "panic":
		readRequest()
		var m map[string]int
		m["x"] = 1 // assignment to a nil map: a runtime panic
	case "fatal":
		readRequest()
		select {} // every goroutine asleep: fatal error
	case "hang":
		readRequest()
		time.Sleep(time.Hour)
	case "recovered":
		// A package turned a panic into an error: counted as a panic.
		req := readRequest()
		rep := reply{ID: req.ID, Outcome: "error", Stage: "run", Msg: "node x (aten::y): internal error: index out of range"}
		if isRecoveredPanic(rep.Msg) {
			rep.Outcome = "panic"
		}
		json.NewEncoder(os.NewFile(3, "replies")).Encode(rep)
		readRequest() // until stdin closes
	}
}

func readRequest() request {
	in := bufio.NewScanner(os.Stdin)
	in.Scan()
	var req request
	json.Unmarshal(in.Bytes(), &req)
	return req
}

func fakeCorpus(t *testing.T) *corpus {
	dir := t.TempDir()
	f := filepath.Join(dir, "p.mlir")
	if err := os.WriteFile(f, []byte("func.func @main() {\n  func.return\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &corpus{mlir: []string{f}}
}

// TestHarnessCountsBadWorkers runs one case on each kind of misbehaving
// worker: each must be counted, and its input kept with a note.
func TestHarnessCountsBadWorkers(t *testing.T) {
	for mode, want := range map[string]string{"panic": "panic", "fatal": "fatal", "hang": "hang", "recovered": "panic"} {
		keep := t.TempDir()
		h := newHarness(fakeCorpus(t), 1, []string{"mlir"}, keep)
		h.hang = 2 * time.Second
		h.workerCmd = func(string) *exec.Cmd {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "MUTATE_TEST_WORKER="+mode)
			return cmd
		}
		if code := h.run(0, 1, 1); code != 1 {
			t.Errorf("%s: exit status %d, want 1", mode, code)
		}
		if got := h.counts["mlir"][want]; got != 1 {
			t.Errorf("%s: counts %v, want one %s", mode, h.counts["mlir"], want)
		}
		note, err := os.ReadFile(filepath.Join(keep, "case-0", "README"))
		if err != nil || !strings.Contains(string(note), "reproduce: go run ./tools/mutate -seed 1 -first 0 -n 1") {
			t.Errorf("%s: note %q, %v", mode, note, err)
		}
		if _, err := os.Stat(filepath.Join(keep, "case-0", "case.mlir")); err != nil {
			t.Errorf("%s: input not kept: %v", mode, err)
		}
	}
}

// TestCasesAreReproducible: case i depends only on the seed and i.
func TestCasesAreReproducible(t *testing.T) {
	c := fakeCorpus(t)
	h := newHarness(c, 7, []string{"mlir"}, t.TempDir())
	a, b := h.newCase(12, "/d"), h.newCase(12, "/d")
	if string(a.files["case.mlir"]) != string(b.files["case.mlir"]) {
		t.Error("the same case differs between two makings")
	}
}

// TestMutatorsChangeTheirInput: every mutator changes real files, and the
// JSON mutator keeps JSON valid.
func TestMutatorsChangeTheirInput(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	doc := []byte(`{"a": [1, 2, {"b": "x", "c": NaN}], "d": -Infinity}`)
	changed := 0
	for i := 0; i < 200; i++ {
		m := mutateJSON(r, doc, nil)
		if m == nil {
			t.Fatal("a JSON document was not mutated as JSON")
		}
		var v any
		if err := json.Unmarshal(m, &v); err != nil {
			t.Fatalf("mutated JSON does not parse: %s", m)
		}
		if string(m) != string(quoteBareNonFinite(doc)) {
			changed++
		}
	}
	if changed < 150 {
		t.Errorf("only %d of 200 mutations changed the document", changed)
	}
	src := []byte("func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n  %0 = stablehlo.add %a, %a : tensor<2x3xf32>\n  func.return %0 : tensor<2x3xf32>\n}\n")
	same := 0
	for i := 0; i < 100; i++ {
		if string(mutateMLIR(r, src)) == string(src) {
			same++
		}
	}
	if same > 20 {
		t.Errorf("%d of 100 MLIR mutations left the program as it was", same)
	}
}

// TestRealCases runs 60 cases made from ../shared through real workers
// (this test binary cannot be one: it builds the command first). None
// may panic, die or hang.
func TestRealCases(t *testing.T) {
	c, err := loadCorpus(filepath.Join("..", "..", "..", "shared", "fixtures"), filepath.Join("..", "..", "..", "shared", "conformance", "stablehlo"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	bin := filepath.Join(t.TempDir(), "mutate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	h := newHarness(c, 1, []string{"pt2", "safetensors", "mlir"}, t.TempDir())
	h.workerCmd = func(dir string) *exec.Cmd {
		return exec.Command(bin, "-worker", "-timeout", h.caseTimeout.String(), "-cache-dir", filepath.Join(dir, "cache"))
	}
	if code := h.run(0, 60, 2); code != 0 {
		t.Errorf("exit status %d: %v", code, h.bad)
	}
	ran := 0
	for _, k := range h.kinds {
		ran += h.counts[k]["ok"] + h.counts[k]["error"]
	}
	if ran != 60 {
		t.Errorf("%d of 60 cases answered: %v", ran, h.counts)
	}
}
