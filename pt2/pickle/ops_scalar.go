package pickle

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// scalar handles the opcodes that push numbers and strings; it reports
// whether op was one of them.
func (m *machine) scalar(op byte) (bool, error) {
	switch op {
	case 'I': // INT (text)
		s, err := m.line()
		if err != nil {
			return true, err
		}
		switch s {
		case "00":
			m.push(false)
		case "01":
			m.push(true)
		default:
			v, err := parseIntText(s)
			if err != nil {
				return true, err
			}
			m.push(v)
		}
	case 'L': // LONG (text)
		s, err := m.line()
		if err != nil {
			return true, err
		}
		v, err := parseIntText(s)
		if err != nil {
			return true, err
		}
		m.push(v)
	case 'J': // BININT
		b, err := m.need(4)
		if err != nil {
			return true, err
		}
		m.push(int64(int32(binary.LittleEndian.Uint32(b))))
	case 'K': // BININT1
		b, err := m.need(1)
		if err != nil {
			return true, err
		}
		m.push(int64(b[0]))
	case 'M': // BININT2
		b, err := m.need(2)
		if err != nil {
			return true, err
		}
		m.push(int64(binary.LittleEndian.Uint16(b)))
	case 0x8a, 0x8b: // LONG1, LONG4
		var n uint64
		if op == 0x8a {
			b, err := m.need(1)
			if err != nil {
				return true, err
			}
			n = uint64(b[0])
		} else {
			b, err := m.need(4)
			if err != nil {
				return true, err
			}
			n = u32(b)
		}
		b, err := m.need(n)
		if err != nil {
			return true, err
		}
		m.push(decodeLong(b))
	case 'F': // FLOAT (text)
		s, err := m.line()
		if err != nil {
			return true, err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return true, fmt.Errorf("pickle: bad float %q", s)
		}
		m.push(f)
	case 'G': // BINFLOAT
		b, err := m.need(8)
		if err != nil {
			return true, err
		}
		m.push(f64(b))
	case 'S': // STRING (text, quoted)
		s, err := m.line()
		if err != nil {
			return true, err
		}
		q, err := unquote(s)
		if err != nil {
			return true, err
		}
		m.push(q)
	case 'V': // UNICODE (raw-unicode-escape)
		s, err := m.line()
		if err != nil {
			return true, err
		}
		u, err := rawUnicodeEscape(s)
		if err != nil {
			return true, err
		}
		m.push(u)
	case 'T', 'U', 'X', 0x8c, 0x8d, 'B', 'C', 0x8e, 0x96: // sized strings and bytes
		return true, m.sized(op)
	default:
		return false, nil
	}
	return true, nil
}
