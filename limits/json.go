package limits

// JSONDepth checks that the JSON text data nests objects and arrays no
// deeper than the Nesting limit. It scans the bytes once and allocates
// nothing, so it runs before the document is decoded; malformed JSON is
// left for the decoder to report.
func (l Limits) JSONDepth(what string, data []byte) error {
	limit := l.OrDefault().Nesting
	depth, inStr := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			if depth > limit {
				return &Error{What: what + ": JSON nesting", Asked: int64(depth), Limit: int64(limit), Env: EnvNesting, Unit: "levels"}
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}
