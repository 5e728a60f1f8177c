package pickle

// Nesting depth. Every stack slot and memo entry carries the depth of its
// value: 0 for a scalar, 1 + the deepest item for a container. Lists,
// dicts and sets grow in place (APPEND, SETITEM, ADDITEMS), so their depth
// is kept by identity in ptrDepth and read from there. A container deeper
// than the limit is an error as soon as it is built or extended.

// isMutable reports whether v is a container that grows in place.
func isMutable(v any) bool {
	switch v.(type) {
	case *List, *Dict, *Set:
		return true
	}
	return false
}

// depthOf returns the depth of v, whose slot says d.
func (m *machine) depthOf(v any, d int) int {
	if isMutable(v) {
		return max(d, m.ptrDepth[v])
	}
	return d
}

// push pushes a scalar (or a global, or an empty container: see build).
func (m *machine) push(v any) { m.pushD(v, 0) }

// pushD pushes v with depth d.
func (m *machine) pushD(v any, d int) {
	if isMutable(v) {
		d = max(d, m.ptrDepth[v])
		m.ptrDepth[v] = d
	}
	m.stack = append(m.stack, v)
	m.depths = append(m.depths, d)
}

// build pushes a new container whose deepest item has depth items.
func (m *machine) build(v any, items int) error {
	if err := m.checkDepth(items + 1); err != nil {
		return err
	}
	m.pushD(v, items+1)
	return nil
}

// grow records that container c, in the top slot, now holds items whose
// deepest has depth items.
func (m *machine) grow(c any, items int) error {
	d := items + 1
	if err := m.checkDepth(d); err != nil {
		return err
	}
	top := len(m.depths) - 1
	m.depths[top] = max(m.depths[top], d)
	if isMutable(c) {
		m.ptrDepth[c] = max(m.ptrDepth[c], d)
	}
	return nil
}

func (m *machine) checkDepth(d int) error { return m.lim.Depth("pickle: value", d) }

// mark opens a MARK; open MARKs count towards the depth limit.
func (m *machine) mark() error {
	if err := m.lim.Depth("pickle: open MARKs", len(m.marks)+1); err != nil {
		return err
	}
	m.marks = append(m.marks, len(m.stack))
	return nil
}
