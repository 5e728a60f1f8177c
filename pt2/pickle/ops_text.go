package pickle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

func (m *machine) sized(op byte) error {
	var n uint64
	switch op {
	case 'U', 0x8c, 'C': // 1-byte length
		b, err := m.need(1)
		if err != nil {
			return err
		}
		n = uint64(b[0])
	case 'T', 'X', 'B': // 4-byte length
		b, err := m.need(4)
		if err != nil {
			return err
		}
		n = u32(b)
		if op == 'T' && int32(n) < 0 {
			return errors.New("pickle: negative BINSTRING length")
		}
	default: // 8-byte length
		b, err := m.need(8)
		if err != nil {
			return err
		}
		n = binary.LittleEndian.Uint64(b)
	}
	b, err := m.need(n)
	if err != nil {
		return err
	}
	switch op {
	case 'X', 0x8c, 0x8d:
		if !utf8.Valid(b) {
			return errors.New("pickle: invalid UTF-8 in a unicode string")
		}
		m.push(string(b))
	case 'T', 'U': // Python 2 str: text for our purposes
		m.push(string(b))
	default:
		m.push(append([]byte(nil), b...))
	}
	return nil
}

// rawUnicodeEscape decodes Python's raw-unicode-escape: bytes are Latin-1
// code points, except \uXXXX and \UXXXXXXXX escapes.
func rawUnicodeEscape(s string) (string, error) {
	var out []rune
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') {
			n := 4
			if s[i+1] == 'U' {
				n = 8
			}
			if i+2+n > len(s) {
				return "", errors.New("pickle: truncated \\u escape")
			}
			v, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
			if err != nil || v > utf8.MaxRune {
				return "", fmt.Errorf("pickle: bad escape %q", s[i:i+2+n])
			}
			out = append(out, rune(v))
			i += 1 + n
			continue
		}
		out = append(out, rune(c))
	}
	return string(out), nil
}
