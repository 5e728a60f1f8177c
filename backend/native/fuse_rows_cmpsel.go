package native

// The loops of select(compare(a, b), x, y) with a uniform threshold b
// (ReLU's 0, a clamp's bound) and x or y uniform (the value selected
// below or above it): one per comparison and mix.

// cmpSelect32U is cmpSelect32 with b uniform (b[0]) and, where xu or yu is
// set, x or y uniform: select(compare(a, b), x, y) over len(d) elements.
// It reports false for the mixes it has no loop for.
func cmpSelect32U(d, a []float32, b float32, x, y []float32, xu, yu bool, dir string) bool {
	a = a[:len(d)]
	switch {
	case xu && !yu:
		xs := x[0]
		y = y[:len(d)]
		switch dir {
		case "EQ":
			for k, v := range a {
				d[k] = sel32(v == b, xs, y[k])
			}
			return true
		case "NE":
			for k, v := range a {
				d[k] = sel32(v != b, xs, y[k])
			}
			return true
		case "LT":
			for k, v := range a {
				d[k] = sel32(v < b, xs, y[k])
			}
			return true
		case "LE":
			for k, v := range a {
				d[k] = sel32(v <= b, xs, y[k])
			}
			return true
		case "GT":
			for k, v := range a {
				d[k] = sel32(v > b, xs, y[k])
			}
			return true
		case "GE":
			for k, v := range a {
				d[k] = sel32(v >= b, xs, y[k])
			}
			return true
		}
	case !xu && yu:
		ys := y[0]
		x = x[:len(d)]
		switch dir {
		case "EQ":
			for k, v := range a {
				d[k] = sel32(v == b, x[k], ys)
			}
			return true
		case "NE":
			for k, v := range a {
				d[k] = sel32(v != b, x[k], ys)
			}
			return true
		case "LT":
			for k, v := range a {
				d[k] = sel32(v < b, x[k], ys)
			}
			return true
		case "LE":
			for k, v := range a {
				d[k] = sel32(v <= b, x[k], ys)
			}
			return true
		case "GT":
			for k, v := range a {
				d[k] = sel32(v > b, x[k], ys)
			}
			return true
		case "GE":
			for k, v := range a {
				d[k] = sel32(v >= b, x[k], ys)
			}
			return true
		}
	case !xu && !yu:
		x, y = x[:len(d)], y[:len(d)]
		switch dir {
		case "EQ":
			for k, v := range a {
				d[k] = sel32(v == b, x[k], y[k])
			}
			return true
		case "NE":
			for k, v := range a {
				d[k] = sel32(v != b, x[k], y[k])
			}
			return true
		case "LT":
			for k, v := range a {
				d[k] = sel32(v < b, x[k], y[k])
			}
			return true
		case "LE":
			for k, v := range a {
				d[k] = sel32(v <= b, x[k], y[k])
			}
			return true
		case "GT":
			for k, v := range a {
				d[k] = sel32(v > b, x[k], y[k])
			}
			return true
		case "GE":
			for k, v := range a {
				d[k] = sel32(v >= b, x[k], y[k])
			}
			return true
		}
	}
	return false
}
