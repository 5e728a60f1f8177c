package dtype

import (
	"encoding/json"
	"os"
	"testing"
)

// testdata/promote.json is written by tools/oracle/gen_promote.py with real
// PyTorch: torch.promote_types over all pairs, torch.result_type over pairs
// of dimensioned tensors, 0-dim tensors and Python scalars, and addcmul's
// result dtype over triples.
type promoteData struct {
	Torch        string               `json:"torch"`
	PromoteTypes [][3]string          `json:"promote_types"`
	ResultType   [][2]json.RawMessage `json:"result_type"`
}

func loadPromoteData(t *testing.T) promoteData {
	b, err := os.ReadFile("testdata/promote.json")
	if err != nil {
		t.Fatal(err)
	}
	var d promoteData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// halfComplex are the complex types PyTorch makes from f16/bf16, which the
// project does not model: Promote and ResultType must refuse them.
var halfComplex = map[string]bool{"complex32": true, "bcomplex32": true}

func TestPromoteTypesMatchesTorch(t *testing.T) {
	d := loadPromoteData(t)
	for _, c := range d.PromoteTypes {
		a, _ := ParseTorch(c[0])
		b, _ := ParseTorch(c[1])
		got, err := Promote(a, b)
		switch {
		case c[2] == "error" || halfComplex[c[2]]:
			if err == nil {
				t.Errorf("promote_types(%s, %s): got %s, PyTorch raises", c[0], c[1], got.Torch())
			}
		case err != nil:
			t.Errorf("promote_types(%s, %s): %v, want %s", c[0], c[1], err, c[2])
		case got.Torch() != c[2]:
			t.Errorf("promote_types(%s, %s) = %s, want %s", c[0], c[1], got.Torch(), c[2])
		}
	}
	if len(d.PromoteTypes) < 200 {
		t.Errorf("only %d promote_types cases", len(d.PromoteTypes))
	}
}

func TestResultTypeMatchesTorch(t *testing.T) {
	d := loadPromoteData(t)
	n := 0
	for _, c := range d.ResultType {
		var ops [][2]string
		var want string
		if err := json.Unmarshal(c[0], &ops); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(c[1], &want); err != nil {
			t.Fatal(err)
		}
		var p Promoter
		for _, o := range ops {
			switch o[0] {
			case "scalar":
				dt := map[string]DType{"bool": Bool, "int": I64, "float": F64, "complex": C128}[o[1]]
				p.Add(Operand{DType: dt, Wrapped: true})
			default:
				dt, err := ParseTorch(o[1])
				if err != nil {
					t.Fatal(err)
				}
				p.Add(Operand{DType: dt, ZeroDim: o[0] == "zero"})
			}
		}
		got, err := p.ResultType()
		switch {
		case want == "error" || halfComplex[want]:
			if err == nil {
				t.Errorf("result_type%v: got %s, want an error (PyTorch: %s)", ops, got.Torch(), want)
			}
		case err != nil:
			t.Errorf("result_type%v: %v, want %s", ops, err, want)
		case got.Torch() != want:
			t.Errorf("result_type%v = %s, want %s", ops, got.Torch(), want)
		default:
			n++
		}
	}
	if n < 1000 {
		t.Errorf("only %d result_type cases matched", n)
	}
}

func TestCanCast(t *testing.T) {
	for _, c := range []struct {
		from, to DType
		ok       bool
	}{{F32, I64, false}, {I64, F32, true}, {I32, Bool, false}, {Bool, I8, true}, {C64, F64, false}, {F64, F16, true}} {
		if CanCast(c.from, c.to) != c.ok {
			t.Errorf("CanCast(%v, %v) != %v", c.from, c.to, c.ok)
		}
	}
}
