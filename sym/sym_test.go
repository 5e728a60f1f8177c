package sym

import "testing"

func TestParseEval(t *testing.T) {
	env := map[string]int64{"s77": 5, "s0": -7, "s1": 2}
	cases := []struct {
		in   string
		want int64
		str  string
	}{
		{"Symbol('s77', positive=True, integer=True)", 5, "s77"},
		{"Mul(Integer(4), Symbol('s77', positive=True, integer=True))", 20, "4*s77"},
		{"Add(Symbol('s77', integer=True), Integer(-1))", 4, "s77 - 1"},
		{"FloorDiv(Symbol('s0'), Integer(2))", -4, "s0 // 2"},
		{"PythonMod(Symbol('s0'), Integer(3))", 2, "s0 % 3"},
		{"Mod(Symbol('s0'), Integer(-3))", -1, "s0 % (-3)"},
		{"Max(Integer(1), Symbol('s1'))", 2, "Max(1, s1)"},
		{"Pow(Symbol('s1'), Integer(10))", 1024, "s1**10"},
		{"CeilToInt(IntTrueDiv(Symbol('s77'), Integer(2)))", 3, "CeilToInt(s77 / 2)"},
		{"Mul(Rational(1, 2), Symbol('s1'))", 1, "1/2*s1"},
		{"4*s0 + 1", -27, "4*s0 + 1"},
		{"2*s1**2 - s77", 3, "2*s1**2 - s77"},
		{"(s77 + 1)//2", 3, "(s77 + 1) // 2"},
		{"-s1", -2, "-s1"},
		{"Piecewise(ExprCondPair(Integer(1), StrictGreaterThan(Symbol('s0'), Integer(0))), ExprCondPair(Integer(9), true))", 9, ""},
		{"Eq(Symbol('s1'), Integer(2))", 1, "s1 == 2"},
	}
	for _, c := range cases {
		e, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		got, err := e.Eval(env)
		if err != nil || got != c.want {
			t.Errorf("Eval(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
		if c.str != "" && e.String() != c.str {
			t.Errorf("String(%q) = %q, want %q", c.in, e.String(), c.str)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, in := range []string{"", "Add(", "Symbol()", "Foo(Integer(1))", "Integer(Symbol('x'))", "'abc", "1 +", "Rational(1, 0)"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
	e, _ := Parse("FloorDiv(s0, s1)")
	if _, err := e.Eval(map[string]int64{"s0": 1, "s1": 0}); err == nil {
		t.Error("division by zero not reported")
	}
	if _, err := e.Eval(map[string]int64{"s0": 1}); err == nil {
		t.Error("unbound symbol not reported")
	}
	for _, in := range []string{"Pow(Integer(2), Integer(100000))", "Pow(Integer(3), Integer(9223372036854775807))"} {
		e, _ = Parse(in)
		if _, err := e.Eval(nil); err == nil {
			t.Errorf("%s: huge power not reported", in)
		}
	}
	e, _ = Parse("Pow(Integer(1), Integer(9223372036854775807))")
	if v, err := e.Eval(nil); err != nil || v != 1 {
		t.Errorf("1**big = %d, %v", v, err)
	}
	if _, err := Parse("Float('1e999999999', precision=53)"); err == nil {
		t.Error("huge Float accepted")
	}
}
