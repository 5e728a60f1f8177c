package pt2

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/torchtpu/torchtpu/limits"
)

// These tests pin how much a load allocates: weights are read into one
// buffer each and kept, not copied. Byte counts of the Go allocator are
// deterministic for the goroutine doing the work, unlike RSS.

// allocated returns the bytes the Go heap allocated while f ran.
func allocated(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

type testEntry struct {
	name   string
	data   []byte
	method uint16
}

func makeZip(t testing.TB, entries ...testEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func openTestZip(t testing.TB, b []byte) *zipFS {
	t.Helper()
	fs, err := openZip(bytes.NewReader(b), int64(len(b)), limits.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestReadAllocatesOnce(t *testing.T) {
	const n = 8 << 20
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	fs := openTestZip(t, makeZip(t, testEntry{"stored", data, zip.Store}, testEntry{"deflated", data, zip.Deflate}))
	for _, c := range []struct {
		name  string
		limit uint64 // bytes the read may allocate
	}{
		{"stored", n + 256<<10},       // one buffer of the entry's size
		{"deflated", 2*n + 1<<20 + n}, // doubling from 1 MiB, plus the inflater
	} {
		var got []byte
		var err error
		a := allocated(func() { got, err = fs.read(c.name, 0) })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%s: bytes differ", c.name)
		}
		if cap(got) != n {
			t.Errorf("%s: capacity %d, want %d (no slack kept)", c.name, cap(got), n)
		}
		if a > c.limit {
			t.Errorf("%s: reading %d bytes allocated %d (limit %d)", c.name, n, a, c.limit)
		}
	}
}

func TestReadRejectsLyingHeaders(t *testing.T) {
	data := []byte("0123456789abcdef")
	raw := func(size uint64, crc uint32) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "w", Method: zip.Store, CRC32: crc,
			CompressedSize64: uint64(len(data)), UncompressedSize64: size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		zw.Close()
		return buf.Bytes()
	}
	good := crc32.ChecksumIEEE(data)
	if _, err := openTestZip(t, raw(uint64(len(data)), good)).read("w", 0); err != nil {
		t.Fatalf("good entry: %v", err)
	}
	for what, b := range map[string][]byte{
		"bad CRC":         raw(uint64(len(data)), good^1),
		"size too large":  raw(uint64(len(data))+4, good),
		"size too small":  raw(uint64(len(data))-4, good),
		"beyond archive":  raw(1<<40, good),
		"nested, bad CRC": raw(uint64(len(data)), good^1),
	} {
		fs := openTestZip(t, b)
		var err error
		if what == "nested, bad CRC" {
			_, _, err = fs.nested("w")
		} else {
			_, err = fs.read("w", 0)
		}
		expectErr(t, what, err, "entry w")
		t.Logf("%s: %v", what, err)
	}
}

// storageSave is a torch.save archive whose data.pkl is
// {'a': tensor(storage 0, offset 0, size (4,)), 'b': tensor(storage 0,
// offset 1, size (2,))}: two views of one 4-float storage.
func storageSave(t testing.TB, method uint16) []byte {
	pkl := []byte("\x80\x02}q\x00(X\x01\x00\x00\x00aq\x01ctorch._utils\n_rebuild_tensor_v2\nq\x02((X\x07\x00\x00\x00storageq\x03ctorch\nFloatStorage\nq\x04X\x01\x00\x00\x000q\x05X\x03\x00\x00\x00cpuq\x06K\x04tq\x07QK\x00K\x04\x85q\x08K\x01\x85q\t\x89ccollections\nOrderedDict\nq\n)Rq\x0btq\x0cRq\rX\x01\x00\x00\x00bq\x0eh\x02((h\x03h\x04h\x05h\x06K\x04tq\x0fQK\x01K\x02\x85q\x10h\t\x89h\n)Rq\x11tq\x12Rq\x13u.")
	st := make([]byte, 16)
	for i := range 4 {
		binary.LittleEndian.PutUint32(st[4*i:], math.Float32bits(float32(i+1)))
	}
	return makeZip(t, testEntry{"archive/data.pkl", pkl, method}, testEntry{"archive/byteorder", []byte("little"), method},
		testEntry{"archive/data/0", st, method})
}

func TestSharedStorageViewsStayApart(t *testing.T) {
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		outer := openTestZip(t, makeZip(t, testEntry{"state.pt", storageSave(t, zip.Store), method}))
		v, err := loadTorchSaveEntry(outer, "state.pt")
		if err != nil {
			t.Fatal(err)
		}
		d, err := tensorDict(v, "state.pt")
		if err != nil {
			t.Fatal(err)
		}
		a, b := d["a"].Literal, d["b"].Literal
		if a.Float64(0) != 1 || a.Float64(3) != 4 || b.Float64(0) != 2 || b.Float64(1) != 3 {
			t.Fatalf("a %v %v, b %v %v", a.Float64(0), a.Float64(3), b.Float64(0), b.Float64(1))
		}
		// a took the storage as its data; b is a copy: writing one must
		// not change the other.
		a.SetFloat64(1, 100)
		if b.Float64(0) != 2 {
			t.Errorf("method %d: b shares memory with a", method)
		}
	}
}

func TestNestedTorchSaveReadInPlace(t *testing.T) {
	// One storage of 8 MiB in a torch.save file stored in an outer archive:
	// loading it allocates the storage once, not the nested file too.
	const n = 2 << 20 // floats
	pkl := []byte("\x80\x02}q\x00X\x01\x00\x00\x00aq\x01ctorch._utils\n_rebuild_tensor_v2\nq\x02((X\x07\x00\x00\x00storageq\x03ctorch\nFloatStorage\nq\x04X\x01\x00\x00\x000q\x05X\x03\x00\x00\x00cpuq\x06J\x00\x00 \x00tq\x07QK\x00J\x00\x00 \x00\x85q\x08K\x01\x85q\t\x89Ntq\nRq\x0bs.")
	st := make([]byte, 4*n)
	inner := makeZip(t, testEntry{"archive/data.pkl", pkl, zip.Store}, testEntry{"archive/data/0", st, zip.Store})
	outer := openTestZip(t, makeZip(t, testEntry{"state.pt", inner, zip.Store}))
	var v any
	var err error
	a := allocated(func() { v, err = loadTorchSaveEntry(outer, "state.pt") })
	if err != nil {
		t.Fatal(err)
	}
	d, err := tensorDict(v, "state.pt")
	if err != nil {
		t.Fatal(err)
	}
	if l := d["a"].Literal; len(l.Data) != 4*n {
		t.Fatalf("a is %v", l)
	}
	if a > 4*n+512<<10 {
		t.Errorf("loading a %d-byte storage allocated %d bytes", 4*n, a)
	}
}

// TestFixtureLoadAllocation loads resnet18 (45 MB of weights): the load may
// allocate the weights once plus the graph, not a second or third copy.
func TestFixtureLoadAllocation(t *testing.T) {
	path := filepath.Join(fixtures(t), "models", "resnet18.pt2")
	var p *Program
	var err error
	a := allocated(func() { p, err = Load(path) })
	if err != nil {
		t.Fatal(err)
	}
	var weights int64
	for _, l := range p.Params {
		weights += int64(len(l.Data))
	}
	for _, l := range p.Buffers {
		weights += int64(len(l.Data))
	}
	if limit := uint64(weights) + uint64(weights)/10 + 16<<20; a > limit {
		t.Errorf("loading %d bytes of weights allocated %d (limit %d)", weights, a, limit)
	}
	t.Logf("weights %.1f MB, allocated %.1f MB", float64(weights)/(1<<20), float64(a)/(1<<20))
}

// Tied weights (one storage, one view, two names) load as one literal;
// different views of one storage stay apart.
func TestTiedWeightsShareOneLiteral(t *testing.T) {
	p, err := Load("testdata/views.pt2")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := p.Weight("base")
	tview, _ := p.Weight("tview")
	slice, _ := p.Weight("slice")
	if base == nil || tview == nil || slice == nil {
		t.Fatalf("views.pt2 lacks base, tview or slice")
	}
	if &base.Data[0] == &tview.Data[0] || &base.Data[0] == &slice.Data[0] {
		t.Errorf("different views of one storage share memory")
	}

	p, err = Load(filepath.Join(fixtures(t), "models", "gpt2_tiny.pt2"))
	if err != nil {
		t.Fatal(err)
	}
	wte, _ := p.Weight("m.transformer.wte.weight")
	head, _ := p.Weight("m.lm_head.weight")
	if wte == nil || head == nil {
		t.Fatal("gpt2_tiny lacks wte or lm_head")
	}
	if wte != head {
		t.Errorf("tied wte and lm_head loaded as two copies")
	}
}
