package pickle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/limits"
)

// Unpickler decodes one pickle. Find and PersistentLoad are the only ways
// a pickle reaches outside the stack machine.
type Unpickler struct {
	// Find resolves GLOBAL / STACK_GLOBAL. It returns an error for any
	// global that is not allowed; nil Find rejects every global.
	Find func(module, name string) (Global, error)
	// PersistentLoad resolves PERSID / BINPERSID; nil rejects them.
	PersistentLoad func(pid any) (any, error)
	// MaxDepth bounds the nesting of the values the pickle builds (a list
	// in a list is depth 2) and of its open MARKs; 0 takes the default of
	// package limits (TORCHTPU_MAX_NESTING). Depth is tracked as values
	// are built and extended; code that walks the result must still bound
	// its walk, as values may share parts or contain themselves.
	MaxDepth int
}

// maxOps bounds the work on one pickle, beyond the bound its length gives.
const maxOps = 1 << 28

var errMark = errors.New("pickle: MARK missing")

type machine struct {
	u      *Unpickler
	data   []byte
	pos    int
	stack  []any
	depths []int // the nesting depth of each stack value (see depth.go)
	marks  []int
	memo   map[uint64]slot
	// ptrDepth is the current depth of each list, dict and set built so
	// far: they grow in place, so their depth is kept by identity.
	ptrDepth map[any]int
	lim      limits.Limits
}

// slot is a value with its nesting depth.
type slot struct {
	v any
	d int
}

// Load decodes data and returns the value STOP leaves on top of the stack.
func (u *Unpickler) Load(data []byte) (any, error) {
	m := &machine{u: u, data: data, memo: map[uint64]slot{}, ptrDepth: map[any]int{},
		lim: limits.Limits{Nesting: u.MaxDepth}.OrDefault()}
	v, err := m.run()
	if err != nil {
		return nil, fmt.Errorf("%w (at byte %d)", err, m.pos)
	}
	return v, nil
}

func (m *machine) need(n uint64) ([]byte, error) {
	if n > uint64(len(m.data)-m.pos) {
		return nil, fmt.Errorf("pickle: truncated (need %d bytes, %d left)", n, len(m.data)-m.pos)
	}
	b := m.data[m.pos : m.pos+int(n)]
	m.pos += int(n)
	return b, nil
}

func (m *machine) line() (string, error) {
	i := bytes.IndexByte(m.data[m.pos:min(len(m.data), m.pos+1<<16)], '\n')
	if i < 0 {
		return "", errors.New("pickle: unterminated text line")
	}
	s := string(m.data[m.pos : m.pos+i])
	m.pos += i + 1
	return s, nil
}

func (m *machine) pop() (any, error) {
	v, _, err := m.popD()
	return v, err
}

// popD pops the top value and returns its depth.
func (m *machine) popD() (any, int, error) {
	if len(m.stack) == 0 {
		return nil, 0, errors.New("pickle: stack underflow")
	}
	if len(m.marks) > 0 && len(m.stack) == m.marks[len(m.marks)-1] {
		return nil, 0, errors.New("pickle: pop across a MARK")
	}
	top := len(m.stack) - 1
	v, d := m.stack[top], m.depthOf(m.stack[top], m.depths[top])
	m.stack, m.depths = m.stack[:top], m.depths[:top]
	return v, d, nil
}

// popN pops the top n values and returns them bottom first with the
// largest of their depths; its errors are those of n calls to pop.
func (m *machine) popN(n int) ([]any, int, error) {
	vs := make([]any, n)
	deepest := 0
	for i := n - 1; i >= 0; i-- {
		v, d, err := m.popD()
		if err != nil {
			return nil, 0, err
		}
		vs[i] = v
		deepest = max(deepest, d)
	}
	return vs, deepest, nil
}

func (m *machine) top() (any, error) {
	if len(m.stack) == 0 || len(m.marks) > 0 && len(m.stack) == m.marks[len(m.marks)-1] {
		return nil, errors.New("pickle: stack underflow")
	}
	return m.stack[len(m.stack)-1], nil
}

// popMark pops everything above the last MARK, with the largest depth.
func (m *machine) popMark() ([]any, int, error) {
	if len(m.marks) == 0 {
		return nil, 0, errMark
	}
	k := m.marks[len(m.marks)-1]
	m.marks = m.marks[:len(m.marks)-1]
	items := append([]any(nil), m.stack[k:]...)
	deepest := 0
	for i, v := range items {
		deepest = max(deepest, m.depthOf(v, m.depths[k+i]))
	}
	m.stack, m.depths = m.stack[:k], m.depths[:k]
	return items, deepest, nil
}

func (m *machine) memoGet(i uint64) error {
	s, ok := m.memo[i]
	if !ok {
		return fmt.Errorf("pickle: memo key %d not found", i)
	}
	m.pushD(s.v, s.d)
	return nil
}

func (m *machine) memoPut(i uint64) error {
	v, err := m.top()
	if err != nil {
		return err
	}
	m.memo[i] = slot{v, m.depths[len(m.depths)-1]}
	return nil
}

func (m *machine) global(module, name string) error {
	if m.u.Find == nil {
		return fmt.Errorf("pickle: global %s.%s is not allowed", module, name)
	}
	g, err := m.u.Find(module, name)
	if err != nil {
		return err
	}
	m.push(g)
	return nil
}

func (m *machine) call(fn any, args any, depth int) error {
	g, ok := fn.(Global)
	if !ok || g.Call == nil {
		return fmt.Errorf("pickle: cannot call %T", fn)
	}
	t, ok := args.(Tuple)
	if !ok {
		return fmt.Errorf("pickle: arguments to %v are %T, not a tuple", g, args)
	}
	v, err := g.Call(t)
	if err != nil {
		return fmt.Errorf("pickle: %v: %w", g, err)
	}
	m.pushD(v, depth) // what a call builds holds at most its arguments
	return nil
}

func (m *machine) persistent(pid any, depth int) error {
	if m.u.PersistentLoad == nil {
		return errors.New("pickle: persistent ids are not allowed")
	}
	v, err := m.u.PersistentLoad(pid)
	if err != nil {
		return err
	}
	m.pushD(v, depth)
	return nil
}

func decodeLong(b []byte) any {
	if len(b) == 0 {
		return int64(0)
	}
	if len(b) <= 8 {
		var u uint64
		for i := len(b) - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		shift := uint(64 - 8*len(b))
		return int64(u<<shift) >> shift
	}
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	n := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if n.IsInt64() {
		return n.Int64()
	}
	return n
}

func parseIntText(s string) (any, error) {
	s = strings.TrimSuffix(s, "L")
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("pickle: bad integer %q", s)
	}
	return n, nil
}

func unquote(s string) (string, error) {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1], nil
	}
	return "", fmt.Errorf("pickle: bad quoted string %q", s)
}

func u32(b []byte) uint64 { return uint64(binary.LittleEndian.Uint32(b)) }

func f64(b []byte) float64 { return math.Float64frombits(binary.BigEndian.Uint64(b)) }
