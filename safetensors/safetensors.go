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
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/limits"
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

// Load reads the file at path under the default limits (see package
// limits): a file larger than its header and the TORCHTPU_MAX_WEIGHT_BYTES
// limit allow is refused before it is read.
func Load(path string) (*File, error) {
	lim := limits.Default()
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size()-8-MaxHeader > lim.WeightBytes {
		return nil, fmt.Errorf("%s: %w", path, &limits.Error{What: "safetensors file", Asked: st.Size(), Limit: lim.WeightBytes + 8 + MaxHeader, Env: limits.EnvWeightBytes, Unit: "bytes"})
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := DecodeWithLimits(data, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Decode parses a whole safetensors file held in memory under the default
// limits. The returned literals share data's memory.
func Decode(data []byte) (*File, error) { return DecodeWithLimits(data, limits.Limits{}) }

// DecodeWithLimits is Decode with the given limits: each tensor within
// TensorBytes, all of them within WeightBytes, the header's JSON nested no
// deeper than Nesting.
func DecodeWithLimits(data []byte, lim limits.Limits) (*File, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("safetensors: %d bytes is too short for a header", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > MaxHeader || n > uint64(len(data)-8) {
		return nil, fmt.Errorf("safetensors: header of %d bytes does not fit (file has %d)", n, len(data))
	}
	body := data[8+n:]
	f, spans, err := parseHeader(data[8:8+n], int64(len(body)), lim)
	if err != nil {
		return nil, err
	}
	for _, s := range spans {
		l, err := literal.FromBytes(s.dt, s.shape, body[s.begin:s.end:s.end])
		if err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", s.name, err)
		}
		f.Tensors[s.name] = l
		f.Names = append(f.Names, s.name)
	}
	return f, nil
}

// span is one tensor of a header: its type and the byte range of its data.
type span struct {
	name       string
	dt         dtype.DType
	shape      []int64
	begin, end int64
}

// parseHeader checks a header against a body of bodyLen bytes and the
// limits, and returns the File with its metadata (no tensors yet) and the
// tensors' spans in the order of their data.
func parseHeader(header []byte, bodyLen int64, lim limits.Limits) (*File, []span, error) {
	if err := lim.JSONDepth("safetensors: header", header); err != nil {
		return nil, nil, err
	}
	budget := lim.NewBudget()
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(header))
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, fmt.Errorf("safetensors: bad header JSON: %w", err)
	}
	if err := checkDuplicateKeys(header); err != nil {
		return nil, nil, err
	}
	f := &File{Tensors: map[string]*literal.Literal{}, Metadata: map[string]string{}}
	var spans []span
	for name, r := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(r, &f.Metadata); err != nil {
				return nil, nil, fmt.Errorf("safetensors: __metadata__ must map strings to strings: %w", err)
			}
			continue
		}
		var e entry
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		dt, ok := dtypes[e.DType]
		if !ok {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: unsupported dtype %q", name, e.DType)
		}
		cnt, err := literal.NumElements(e.Shape)
		if err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		b, en := e.Offsets[0], e.Offsets[1]
		if b < 0 || en < b || en > bodyLen {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] outside the %d data bytes", name, b, en, bodyLen)
		}
		if want := cnt * int64(dt.Size()); en-b != want {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %s%v needs %d bytes, data_offsets span %d", name, e.DType, e.Shape, want, en-b)
		}
		what := fmt.Sprintf("safetensors: tensor %q (%s%v)", name, e.DType, e.Shape)
		if err := lim.Tensor(what, en-b); err != nil {
			return nil, nil, err
		}
		if err := budget.Take(what, en-b); err != nil {
			return nil, nil, err
		}
		spans = append(spans, span{name, dt, e.Shape, b, en})
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].begin != spans[j].begin {
			return spans[i].begin < spans[j].begin
		}
		return spans[i].end < spans[j].end
	})
	for i, s := range spans {
		if i > 0 && s.begin < spans[i-1].end {
			return nil, nil, fmt.Errorf("safetensors: tensors %q and %q overlap", spans[i-1].name, s.name)
		}
	}
	return f, spans, nil
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

// LoadOnly reads the tensors of the file at path whose names keep accepts,
// and only those: the others' bytes are never read, so a model's I/O file
// can give its inputs without its expected outputs taking memory. The
// whole header is checked as Decode checks it. Each tensor gets its own
// buffer; Names lists the tensors read.
func LoadOnly(path string, keep func(name string) bool) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := readOnly(fh, keep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

func readOnly(fh *os.File, keep func(name string) bool) (*File, error) {
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	var head [8]byte
	if size < 8 {
		return nil, fmt.Errorf("safetensors: %d bytes is too short for a header", size)
	}
	if _, err := fh.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	n := binary.LittleEndian.Uint64(head[:])
	if n > MaxHeader || n > uint64(size-8) {
		return nil, fmt.Errorf("safetensors: header of %d bytes does not fit (file has %d)", n, size)
	}
	header := make([]byte, n)
	if _, err := fh.ReadAt(header, 8); err != nil {
		return nil, fmt.Errorf("safetensors: header: %w", err)
	}
	bodyAt := 8 + int64(n)
	f, spans, err := parseHeader(header, size-bodyAt, limits.Limits{})
	if err != nil {
		return nil, err
	}
	for _, s := range spans {
		if !keep(s.name) {
			continue
		}
		// The span lies inside the file (parseHeader checked it against
		// the file's size), so this allocation is bounded by it.
		data := make([]byte, s.end-s.begin)
		if _, err := fh.ReadAt(data, bodyAt+s.begin); err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", s.name, err)
		}
		l, err := literal.FromBytes(s.dt, s.shape, data)
		if err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", s.name, err)
		}
		f.Tensors[s.name] = l
		f.Names = append(f.Names, s.name)
	}
	return f, nil
}

// IsInput reports whether name is a user input's (input.N): with LoadOnly,
// it reads the inputs of an I/O file and not its outputs.
func IsInput(name string) bool { return strings.HasPrefix(name, "input.") }

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
