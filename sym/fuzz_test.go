package sym

import "testing"

// fuzzSeeds are expressions as torch.export writes them (the expr_str of
// the fixtures' symbolic sizes and range checks) and the printed forms.
var fuzzSeeds = []string{
	"Mul(Integer(4), Symbol('s77', positive=True, integer=True))",
	"Symbol('s98', positive=True, integer=True)",
	"LessThan(Symbol('u0', integer=True), Integer(12))",
	"GreaterThan(Symbol('u0', integer=True), Integer(0))",
	"Mul(Integer(384), Symbol('s98', positive=True, integer=True))",
	"CeilToInt(IntTrueDiv(Symbol('s77'), Integer(2)))",
	"Piecewise(ExprCondPair(Integer(1), StrictGreaterThan(Symbol('s0'), Integer(0))), ExprCondPair(Integer(9), true))",
	"Mod(Symbol('s0'), Integer(-3))",
	"Mul(Rational(1, 2), Symbol('s1'))",
	"2*s1**2 - s77 // 3 % 2",
	"(s77 + 1)//2",
	"Max(1, s1) - Min(s0, -s1)",
}

// FuzzParse: whatever parses prints and evaluates without panicking,
// and its printed form parses too. (The printed form is for reading, not
// a serialization: Mod and PythonMod both print as %, Rational(1, 2) as
// 1/2, so no value-preserving round trip is asked of it.)
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	env := map[string]int64{"s0": 3, "s1": -2, "s77": 7, "s98": 5, "u0": 4}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			return
		}
		_, _ = e.Eval(env)
		_, _ = e.IsConst()
		printed := e.String()
		if _, err := Parse(printed); err != nil {
			t.Fatalf("%q prints as %q, which does not parse: %v", s, printed, err)
		}
	})
}
