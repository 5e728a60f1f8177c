package legalize

import "github.com/torchtpu/torchtpu/stablehlo"

// Pruning: a plugin compiles @main and what it calls; other functions of
// the module (another test's body with the interpreter's check ops, in a
// conformance file) are dropped, so that they cannot fail the compile.

// reachable returns the functions @main reaches through func.call and
// stablehlo.composite, @main included.
func reachable(m *stablehlo.Module) map[string]bool {
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		f := m.Func(name)
		if f == nil || seen[name] {
			return
		}
		seen[name] = true
		_ = f.Body.Walk(func(op *stablehlo.Op) error {
			for _, attr := range []string{"callee", "decomposition"} {
				if c, ok := op.Symbol(attr); ok {
					visit(c)
				}
			}
			return nil
		})
	}
	visit("main")
	return seen
}

func needPrune(s *State) bool {
	if s.Module.Func("main") == nil {
		return false
	}
	return len(reachable(s.Module)) < len(s.Module.Funcs)
}

func runPrune(s *State) error {
	keep := reachable(s.Module)
	var fs []*stablehlo.Func
	for _, f := range s.Module.Funcs {
		if keep[f.Name] {
			fs = append(fs, f)
		}
	}
	s.Module.Funcs = fs
	return nil
}
