package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
)

// Write writes tensors in a deterministic order (names compared with
// numeric parts as numbers, so input.2 precedes input.10), with the given
// metadata (may be nil). The header is padded with spaces to 8 bytes.
func Write(w io.Writer, tensors map[string]*literal.Literal, metadata map[string]string) error {
	order := make([]string, 0, len(tensors))
	for n := range tensors {
		if n == "__metadata__" || n == "" {
			return fmt.Errorf("safetensors: invalid tensor name %q", n)
		}
		order = append(order, n)
	}
	sort.Slice(order, func(i, j int) bool { return naturalLess(order[i], order[j]) })
	var hb bytes.Buffer
	hb.WriteByte('{')
	if len(metadata) > 0 {
		mj, err := json.Marshal(metadata)
		if err != nil {
			return err
		}
		hb.WriteString(`"__metadata__":`)
		hb.Write(mj)
	}
	var off int64
	for i, n := range order {
		l := tensors[n]
		dn := DTypeName(l.DType)
		if dn == "" {
			return fmt.Errorf("safetensors: tensor %q: dtype %v has no safetensors name", n, l.DType)
		}
		cnt, err := literal.NumElements(l.Shape)
		if err != nil || cnt*int64(l.DType.Size()) != int64(len(l.Data)) {
			return fmt.Errorf("safetensors: tensor %q: %d data bytes for %v", n, len(l.Data), l)
		}
		if i > 0 || len(metadata) > 0 {
			hb.WriteByte(',')
		}
		nj, _ := json.Marshal(n)
		shape := l.Shape
		if shape == nil {
			shape = []int64{}
		}
		sj, _ := json.Marshal(shape)
		fmt.Fprintf(&hb, `%s:{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}`, nj, dn, sj, off, off+int64(len(l.Data)))
		off += int64(len(l.Data))
	}
	hb.WriteByte('}')
	for hb.Len()%8 != 0 {
		hb.WriteByte(' ')
	}
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(hb.Len()))
	if _, err := w.Write(lenBuf[:]); err != nil {
		return err
	}
	if _, err := w.Write(hb.Bytes()); err != nil {
		return err
	}
	for _, n := range order {
		if _, err := w.Write(tensors[n].Data); err != nil {
			return err
		}
	}
	return nil
}

// Save writes tensors to path (see Write).
func Save(path string, tensors map[string]*literal.Literal, metadata map[string]string) error {
	var buf bytes.Buffer
	if err := Write(&buf, tensors, metadata); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// naturalLess compares strings with runs of digits compared as numbers,
// falling back to plain order so that distinct names never tie.
func naturalLess(a, b string) bool {
	if c := naturalCmp(a, b); c != 0 {
		return c < 0
	}
	return a < b
}

func naturalCmp(a, b string) int {
	less := func(x bool) int {
		if x {
			return -1
		}
		return 1
	}
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return less(len(na) < len(nb))
			}
			if na != nb {
				return less(na < nb)
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return less(a[0] < b[0])
		}
		a, b = a[1:], b[1:]
	}
	if len(a) == len(b) {
		return 0
	}
	return less(len(a) < len(b))
}

func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
