package pickle

import (
	"errors"
	"fmt"
	"strconv"
)

func (m *machine) run() (any, error) {
	for ops := 0; ; ops++ {
		if ops > maxOps {
			return nil, errors.New("pickle: too many opcodes")
		}
		b, err := m.need(1)
		if err != nil {
			return nil, err
		}
		op := b[0]
		if op == '.' { // STOP
			if len(m.stack) != 1 || len(m.marks) != 0 {
				return nil, fmt.Errorf("pickle: STOP with %d values and %d marks on the stack", len(m.stack), len(m.marks))
			}
			return m.stack[0], nil
		}
		if err := m.step(op); err != nil {
			return nil, err
		}
	}
}

func (m *machine) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		b, err := m.need(1)
		if err != nil {
			return err
		}
		if b[0] > 5 {
			return fmt.Errorf("pickle: unsupported protocol %d", b[0])
		}
	case 0x95: // FRAME
		_, err := m.need(8)
		return err
	case '(': // MARK
		return m.mark()
	case '0': // POP
		_, err := m.pop()
		return err
	case '1': // POP_MARK
		_, _, err := m.popMark()
		return err
	case '2': // DUP
		v, err := m.top()
		if err != nil {
			return err
		}
		m.pushD(v, m.depths[len(m.depths)-1])
	case 'N':
		m.push(nil)
	case 0x88:
		m.push(true)
	case 0x89:
		m.push(false)
	case ')':
		return m.build(Tuple{}, 0)
	case 't':
		items, d, err := m.popMark()
		if err != nil {
			return err
		}
		return m.build(Tuple(items), d)
	case 0x85, 0x86, 0x87: // TUPLE1..3
		n := int(op - 0x84)
		if len(m.stack) < n || len(m.marks) > 0 && len(m.stack)-n < m.marks[len(m.marks)-1] {
			return errors.New("pickle: stack underflow")
		}
		items, d, err := m.popN(n)
		if err != nil {
			return err
		}
		return m.build(Tuple(items), d)
	case ']':
		return m.build(&List{}, 0)
	case 'l':
		items, d, err := m.popMark()
		if err != nil {
			return err
		}
		return m.build(&List{Items: items}, d)
	case 'a', 'e': // APPEND, APPENDS
		var items []any
		var d int
		var err error
		if op == 'a' {
			items, d, err = m.popN(1)
		} else {
			items, d, err = m.popMark()
		}
		if err != nil {
			return err
		}
		t, err := m.top()
		if err != nil {
			return err
		}
		l, ok := t.(*List)
		if !ok {
			return fmt.Errorf("pickle: APPEND to %T", t)
		}
		l.Items = append(l.Items, items...)
		return m.grow(l, d)
	case '}':
		return m.build(NewDict(), 0)
	case 'd':
		items, depth, err := m.popMark()
		if err != nil {
			return err
		}
		d := NewDict()
		if err := setItems(d, items); err != nil {
			return err
		}
		return m.build(d, depth)
	case 's', 'u': // SETITEM, SETITEMS
		var items []any
		var depth int
		var err error
		if op == 's' {
			items, depth, err = m.popN(2) // key, value
		} else {
			items, depth, err = m.popMark()
		}
		if err != nil {
			return err
		}
		t, err := m.top()
		if err != nil {
			return err
		}
		d, ok := t.(*Dict)
		if !ok {
			return fmt.Errorf("pickle: SETITEM on %T", t)
		}
		if err := setItems(d, items); err != nil {
			return err
		}
		return m.grow(d, depth)
	case 0x8f: // EMPTY_SET
		return m.build(&Set{}, 0)
	case 0x90: // ADDITEMS
		items, depth, err := m.popMark()
		if err != nil {
			return err
		}
		t, err := m.top()
		if err != nil {
			return err
		}
		s, ok := t.(*Set)
		if !ok {
			return fmt.Errorf("pickle: ADDITEMS on %T", t)
		}
		s.Items = append(s.Items, items...)
		return m.grow(s, depth)
	case 0x91: // FROZENSET
		items, depth, err := m.popMark()
		if err != nil {
			return err
		}
		return m.build(&Set{Items: items}, depth)
	case 'g', 'p': // GET, PUT (text index)
		s, err := m.line()
		if err != nil {
			return err
		}
		i, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Errorf("pickle: bad memo index %q", s)
		}
		if op == 'g' {
			return m.memoGet(i)
		}
		return m.memoPut(i)
	case 'h', 'j', 'q', 'r': // BINGET, LONG_BINGET, BINPUT, LONG_BINPUT
		var i uint64
		if op == 'h' || op == 'q' {
			b, err := m.need(1)
			if err != nil {
				return err
			}
			i = uint64(b[0])
		} else {
			b, err := m.need(4)
			if err != nil {
				return err
			}
			i = u32(b)
		}
		if op == 'h' || op == 'j' {
			return m.memoGet(i)
		}
		return m.memoPut(i)
	case 0x94: // MEMOIZE
		return m.memoPut(uint64(len(m.memo)))
	case 'c': // GLOBAL
		mod, err := m.line()
		if err != nil {
			return err
		}
		name, err := m.line()
		if err != nil {
			return err
		}
		return m.global(mod, name)
	case 0x93: // STACK_GLOBAL
		v, _, err := m.popN(2) // module, name
		if err != nil {
			return err
		}
		ms, ok1 := v[0].(string)
		ns, ok2 := v[1].(string)
		if !ok1 || !ok2 {
			return errors.New("pickle: STACK_GLOBAL needs two strings")
		}
		return m.global(ms, ns)
	case 'R', 0x81: // REDUCE, NEWOBJ
		v, depth, err := m.popN(2) // callable, arguments
		if err != nil {
			return err
		}
		return m.call(v[0], v[1], depth)
	case 0x92: // NEWOBJ_EX
		v, depth, err := m.popN(3) // class, arguments, keyword arguments
		if err != nil {
			return err
		}
		if d, ok := v[2].(*Dict); !ok || d.Len() != 0 {
			return errors.New("pickle: NEWOBJ_EX with keyword arguments")
		}
		return m.call(v[0], v[1], depth)
	case 'b': // BUILD
		state, depth, err := m.popD()
		if err != nil {
			return err
		}
		obj, err := m.top()
		if err != nil {
			return err
		}
		s, ok := obj.(Stater)
		if !ok {
			return fmt.Errorf("pickle: BUILD on %T", obj)
		}
		if err := s.SetState(state); err != nil {
			return err
		}
		return m.grow(obj, depth)
	case 'P': // PERSID
		s, err := m.line()
		if err != nil {
			return err
		}
		return m.persistent(s, 0)
	case 'Q': // BINPERSID
		pid, depth, err := m.popD()
		if err != nil {
			return err
		}
		return m.persistent(pid, depth)
	default:
		if ok, err := m.scalar(op); ok {
			return err
		}
		// INST, OBJ, EXT1/2/4, NEXT_BUFFER, READONLY_BUFFER and unknown opcodes.
		return fmt.Errorf("pickle: unsupported opcode 0x%02x", op)
	}
	return nil
}

func setItems(d *Dict, items []any) error {
	if len(items)%2 != 0 {
		return errors.New("pickle: odd number of items for a dict")
	}
	for i := 0; i < len(items); i += 2 {
		if err := d.Set(items[i], items[i+1]); err != nil {
			return err
		}
	}
	return nil
}
