package stablehlo

import (
	"fmt"
	"sort"

	"github.com/torchtpu/torchtpu/limits"
)

// SyntaxError is a parse error at a source position.
type SyntaxError struct {
	Loc Loc
	Msg string
	// Err is the cause when there is one beyond the text, such as the
	// *limits.Error of a program too large or nested too deeply.
	Err error
}

// Unwrap returns the cause, if any.
func (e *SyntaxError) Unwrap() error { return e.Err }

func (e *SyntaxError) Error() string {
	if e.Loc.Line == 0 {
		if e.Loc.File != "" {
			return e.Loc.File + ": " + e.Msg
		}
		return e.Msg
	}
	return e.Loc.String() + ": " + e.Msg
}

// maxDepthCeiling caps the nesting limit of regions, attributes and types
// (limits.Limits.Nesting, 500 by default) whatever it is raised to, so
// that hostile input cannot exhaust the goroutine stack.
const maxDepthCeiling = 10000

// scanner reads MLIR text byte by byte. The parser works directly on it:
// MLIR's grammar is context dependent (e.g. "2x3xf32" inside tensor<>), so
// a token stream would have to be re-split anyway.
//
// Parse errors are raised with fail, which panics with a *SyntaxError that
// the entry points recover; no other panic is recovered.
type scanner struct {
	file  string
	src   []byte
	pos   int
	end   int   // parsing stops here (the end of a `// -----` chunk)
	lines []int // byte offset of each line start
	depth int
	lim   limits.Limits // with defaults filled in
}

func newScanner(file string, src []byte, lim limits.Limits) *scanner {
	lines := []int{0}
	for i, c := range src {
		if c == '\n' {
			lines = append(lines, i+1)
		}
	}
	lim = lim.OrDefault()
	lim.Nesting = min(lim.Nesting, maxDepthCeiling)
	return &scanner{file: file, src: src, end: len(src), lines: lines, lim: lim}
}

// loc converts a byte offset to a 1-based line and column.
func (s *scanner) loc(pos int) Loc {
	i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > pos }) - 1
	if i < 0 {
		i = 0
	}
	return Loc{File: s.file, Line: i + 1, Col: pos - s.lines[i] + 1}
}

// fail aborts parsing with a syntax error at pos.
func (s *scanner) fail(pos int, format string, args ...any) {
	panic(&SyntaxError{Loc: s.loc(pos), Msg: fmt.Sprintf(format, args...)})
}

// enter and leave bound the recursion depth.
func (s *scanner) enter() {
	s.depth++
	if err := s.lim.Depth("MLIR nesting", s.depth); err != nil {
		panic(&SyntaxError{Loc: s.loc(s.pos), Msg: err.Error(), Err: err})
	}
}

func (s *scanner) leave() { s.depth-- }

// ws skips white space and // comments.
func (s *scanner) ws() {
	for s.pos < s.end {
		c := s.src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.pos++
		case c == '/' && s.pos+1 < s.end && s.src[s.pos+1] == '/':
			for s.pos < s.end && s.src[s.pos] != '\n' {
				s.pos++
			}
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos >= s.end {
		return 0
	}
	return s.src[s.pos]
}

// at reports whether the next non-space text starts with lit.
func (s *scanner) at(lit string) bool {
	s.ws()
	return s.end-s.pos >= len(lit) && string(s.src[s.pos:s.pos+len(lit)]) == lit
}

// accept consumes lit (punctuation) if it comes next.
func (s *scanner) accept(lit string) bool {
	if s.at(lit) {
		s.pos += len(lit)
		return true
	}
	return false
}

// expect consumes lit or fails.
func (s *scanner) expect(lit string) {
	if !s.accept(lit) {
		s.fail(s.pos, "expected '%s', found %s", lit, s.describe())
	}
}

// atKeyword reports whether the bare identifier kw comes next.
func (s *scanner) atKeyword(kw string) bool {
	if !s.at(kw) {
		return false
	}
	e := s.pos + len(kw)
	return e >= s.end || !isIdentChar(s.src[e])
}

// acceptKeyword consumes the bare identifier kw if it comes next.
func (s *scanner) acceptKeyword(kw string) bool {
	if s.atKeyword(kw) {
		s.pos += len(kw)
		return true
	}
	return false
}

func (s *scanner) expectKeyword(kw string) {
	if !s.acceptKeyword(kw) {
		s.fail(s.pos, "expected '%s', found %s", kw, s.describe())
	}
}

// describe names what comes next, for error messages.
func (s *scanner) describe() string {
	s.ws()
	if s.pos >= s.end {
		return "end of input"
	}
	e := s.pos
	for e < s.end && e-s.pos < 20 && s.src[e] != '\n' && s.src[e] != ' ' {
		e++
	}
	if e == s.pos {
		e++
	}
	return fmt.Sprintf("%q", s.src[s.pos:e])
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isIdentChar: characters allowed after the first in a bare identifier.
func isIdentChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.'
}

// isSuffixChar: characters allowed in %value, ^block and @symbol names.
func isSuffixChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.' || c == '-'
}

// ident reads a bare identifier ([A-Za-z_][A-Za-z0-9_$.]*), "" if none.
func (s *scanner) ident() string {
	s.ws()
	if s.pos >= s.end || !(isLetter(s.src[s.pos]) || s.src[s.pos] == '_') {
		return ""
	}
	st := s.pos
	for s.pos < s.end && isIdentChar(s.src[s.pos]) {
		s.pos++
	}
	return string(s.src[st:s.pos])
}

func (s *scanner) expectIdent(what string) string {
	id := s.ident()
	if id == "" {
		s.fail(s.pos, "expected %s, found %s", what, s.describe())
	}
	return id
}

// suffixID reads a name after a sigil (%, ^, #, !): digits or an
// identifier that may contain '-'.
func (s *scanner) suffixID() string {
	st := s.pos
	for s.pos < s.end && isSuffixChar(s.src[s.pos]) {
		s.pos++
	}
	if s.pos == st {
		s.fail(st, "expected a name, found %s", s.describe())
	}
	return string(s.src[st:s.pos])
}

// valueName reads %name (without the sigil); ok is false when no % comes
// next.
func (s *scanner) valueName() (string, bool) {
	if s.peek() != '%' {
		return "", false
	}
	s.pos++
	return s.suffixID(), true
}

// symbolName reads @name or @"quoted name" (without the sigil).
func (s *scanner) symbolName() (string, bool) {
	if s.peek() != '@' {
		return "", false
	}
	s.pos++
	if s.pos < s.end && s.src[s.pos] == '"' {
		return s.stringLit(), true
	}
	return s.suffixID(), true
}

// here skips white space and returns the position of what comes next.
func (s *scanner) here() int {
	s.ws()
	return s.pos
}
