package stablehlo

import (
	"bytes"
	"strings"
)

// stringLit reads a quoted string with MLIR escapes (\n \t \" \\ \XX).
func (s *scanner) stringLit() string {
	if s.peek() != '"' {
		s.fail(s.pos, "expected a string, found %s", s.describe())
	}
	st := s.pos
	s.pos++
	// Fast path: no escapes before the closing quote.
	if i := bytes.IndexAny(s.src[s.pos:s.end], "\"\\\n"); i >= 0 && s.src[s.pos+i] == '"' {
		out := string(s.src[s.pos : s.pos+i])
		s.pos += i + 1
		return out
	}
	var b strings.Builder
	for {
		if s.pos >= s.end || s.src[s.pos] == '\n' {
			s.fail(st, "unterminated string")
		}
		c := s.src[s.pos]
		s.pos++
		switch c {
		case '"':
			return b.String()
		case '\\':
			if s.pos >= s.end {
				s.fail(st, "unterminated string")
			}
			e := s.src[s.pos]
			s.pos++
			switch {
			case e == 'n':
				b.WriteByte('\n')
			case e == 't':
				b.WriteByte('\t')
			case e == '"' || e == '\\':
				b.WriteByte(e)
			case isHex(e) && s.pos < s.end && isHex(s.src[s.pos]):
				b.WriteByte(hexVal(e)<<4 | hexVal(s.src[s.pos]))
				s.pos++
			default:
				s.fail(s.pos-2, "unknown escape in string")
			}
		default:
			b.WriteByte(c)
		}
	}
}

func hexVal(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// numberText reads an integer or float literal (with optional sign) and
// returns its text; "" if none comes next. Hex (0x...) is returned whole.
func (s *scanner) numberText() string {
	s.ws()
	st := s.pos
	p := s.pos
	if p < s.end && (s.src[p] == '-' || s.src[p] == '+') {
		p++
	}
	if p >= s.end || !isDigit(s.src[p]) {
		return ""
	}
	if s.src[p] == '0' && p+1 < s.end && s.src[p+1] == 'x' && p+2 < s.end && isHex(s.src[p+2]) {
		p += 2
		for p < s.end && isHex(s.src[p]) {
			p++
		}
		s.pos = p
		return string(s.src[st:p])
	}
	for p < s.end && isDigit(s.src[p]) {
		p++
	}
	if p < s.end && s.src[p] == '.' {
		p++
		for p < s.end && isDigit(s.src[p]) {
			p++
		}
		if p < s.end && (s.src[p] == 'e' || s.src[p] == 'E') {
			q := p + 1
			if q < s.end && (s.src[q] == '-' || s.src[q] == '+') {
				q++
			}
			if q < s.end && isDigit(s.src[q]) {
				for q < s.end && isDigit(s.src[q]) {
					q++
				}
				p = q
			}
		}
	}
	s.pos = p
	return string(s.src[st:p])
}

// balanced returns the raw text of a bracketed group starting at the next
// open bracket ('<', '(', '[' or '{'), consuming it. Strings are skipped
// whole; '->' does not close a '<'.
func (s *scanner) balanced() string {
	s.ws()
	st := s.pos
	var stack []byte
	for s.pos < s.end {
		c := s.src[s.pos]
		switch c {
		case '"':
			s.stringLit()
			continue
		case '<', '(', '[', '{':
			stack = append(stack, c)
		case '>', ')', ']', '}':
			if c == '>' && s.pos > st && s.src[s.pos-1] == '-' {
				break
			}
			if len(stack) == 0 || closer(stack[len(stack)-1]) != c {
				s.fail(s.pos, "unbalanced '%c'", c)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				s.pos++
				return string(s.src[st:s.pos])
			}
		}
		if len(stack) == 0 {
			s.fail(s.pos, "expected a bracketed group, found %s", s.describe())
		}
		s.pos++
	}
	s.fail(st, "unterminated bracketed group")
	return ""
}

func closer(open byte) byte {
	switch open {
	case '<':
		return '>'
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}
