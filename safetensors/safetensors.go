// Package safetensors reads and writes the safetensors format: an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype,
// shape and byte range, then the raw little-endian data.
//
// torchtpu's I/O files use it: user inputs are named input.0, input.1, …
// and outputs output.0, … (see Inputs and Outputs).
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// MaxHeader bounds the JSON header (as the reference implementation does).
const MaxHeader = 100 << 20

// dtypes maps safetensors dtype names to element types.
var dtypes = map[string]dtype.DType{
	"BOOL": dtype.Bool, "U8": dtype.U8, "I8": dtype.I8, "I16": dtype.I16, "U16": dtype.U16,
	"I32": dtype.I32, "U32": dtype.U32, "I64": dtype.I64, "U64": dtype.U64,
	"F16": dtype.F16, "BF16": dtype.BF16, "F32": dtype.F32, "F64": dtype.F64,
	"C64": dtype.C64, "C128": dtype.C128,
	"F8_E4M3": dtype.F8E4M3FN, "F8_E5M2": dtype.F8E5M2, "F8_E8M0": dtype.F8E8M0FNU,
}

var names = func() map[dtype.DType]string {
	m := map[dtype.DType]string{}
	for n, d := range dtypes {
		m[d] = n
	}
	return m
}()

// DTypeName returns the safetensors name of d ("F32"), or "" if it has none.
func DTypeName(d dtype.DType) string { return names[d] }

// File is a decoded safetensors file.
type File struct {
	// Names lists the tensors in the order of their data in the file.
	Names    []string
	Tensors  map[string]*literal.Literal
	Metadata map[string]string
}

type entry struct {
	DType   string   `json:"dtype"`
	Shape   []int64  `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// Load reads the file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Decode parses a whole safetensors file held in memory. The returned
// literals share data's memory.
func Decode(data []byte) (*File, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("safetensors: %d bytes is too short for a header", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > MaxHeader || n > uint64(len(data)-8) {
		return nil, fmt.Errorf("safetensors: header of %d bytes does not fit (file has %d)", n, len(data))
	}
	header := data[8 : 8+n]
	body := data[8+n:]
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(header))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("safetensors: bad header JSON: %w", err)
	}
	if err := checkDuplicateKeys(header); err != nil {
		return nil, err
	}
	f := &File{Tensors: map[string]*literal.Literal{}, Metadata: map[string]string{}}
	type span struct {
		name       string
		begin, end int64
	}
	var spans []span
	for name, r := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(r, &f.Metadata); err != nil {
				return nil, fmt.Errorf("safetensors: __metadata__ must map strings to strings: %w", err)
			}
			continue
		}
		var e entry
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		dt, ok := dtypes[e.DType]
		if !ok {
			return nil, fmt.Errorf("safetensors: tensor %q: unsupported dtype %q", name, e.DType)
		}
		cnt, err := literal.NumElements(e.Shape)
		if err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		b, en := e.Offsets[0], e.Offsets[1]
		if b < 0 || en < b || en > int64(len(body)) {
			return nil, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] outside the %d data bytes", name, b, en, len(body))
		}
		if want := cnt * int64(dt.Size()); en-b != want {
			return nil, fmt.Errorf("safetensors: tensor %q: %s%v needs %d bytes, data_offsets span %d", name, e.DType, e.Shape, want, en-b)
		}
		l, err := literal.FromBytes(dt, e.Shape, body[b:en:en])
		if err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		f.Tensors[name] = l
		spans = append(spans, span{name, b, en})
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].begin != spans[j].begin {
			return spans[i].begin < spans[j].begin
		}
		return spans[i].end < spans[j].end
	})
	for i, s := range spans {
		if i > 0 && s.begin < spans[i-1].end {
			return nil, fmt.Errorf("safetensors: tensors %q and %q overlap", spans[i-1].name, s.name)
		}
		f.Names = append(f.Names, s.name)
	}
	return f, nil
}

// checkDuplicateKeys rejects a header object with a repeated top-level key
// (encoding/json would silently keep the last one).
func checkDuplicateKeys(header []byte) error {
	dec := json.NewDecoder(bytes.NewReader(header))
	if _, err := dec.Token(); err != nil { // '{'
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("safetensors: bad header JSON: %w", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("safetensors: tensor %q appears twice in the header", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("safetensors: bad header JSON: %w", err)
		}
	}
	return nil
}

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

// Inputs returns input.0, input.1, … up to the first missing index.
func (f *File) Inputs() []*literal.Literal { return f.seq("input.") }

// Outputs returns output.0, output.1, … up to the first missing index.
func (f *File) Outputs() []*literal.Literal { return f.seq("output.") }

func (f *File) seq(prefix string) []*literal.Literal {
	var out []*literal.Literal
	for i := 0; ; i++ {
		l, ok := f.Tensors[prefix+strconv.Itoa(i)]
		if !ok {
			return out
		}
		out = append(out, l)
	}
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
