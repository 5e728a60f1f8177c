package pt2

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strings"

	"github.com/torchtpu/torchtpu/limits"
)

// maxEntries bounds the number of zip entries an archive may have.
const maxEntries = 1 << 20

// zipFS is a validated view of a zip archive's entries.
type zipFS struct {
	r     io.ReaderAt // the archive
	files map[string]*zip.File
	order []string // entry names in archive order
	size  int64    // archive size in bytes
	lim   limits.Limits
	// budget counts the tensor bytes read from the archive, nested
	// torch.save archives included, against lim.WeightBytes.
	budget *limits.Budget
}

// openZip checks that r is a zip whose entry names are all safe relative
// paths (no "..", no absolute paths, no backslashes, no duplicates). Its
// tensors are charged to budget (a new one when nil).
func openZip(r io.ReaderAt, size int64, lim limits.Limits, budget *limits.Budget) (*zipFS, error) {
	lim = lim.OrDefault()
	if budget == nil {
		budget = lim.NewBudget()
	}
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(z.File) > maxEntries {
		return nil, fmt.Errorf("zip has %d entries (limit %d)", len(z.File), maxEntries)
	}
	fs := &zipFS{r: r, files: make(map[string]*zip.File, len(z.File)), size: size, lim: lim, budget: budget}
	for _, f := range z.File {
		if err := checkEntryName(f.Name); err != nil {
			return nil, err
		}
		if f.FileInfo().IsDir() {
			continue
		}
		if _, dup := fs.files[f.Name]; dup {
			return nil, fmt.Errorf("zip entry %q appears twice", f.Name)
		}
		fs.files[f.Name] = f
		fs.order = append(fs.order, f.Name)
	}
	if len(fs.order) == 0 {
		return nil, errors.New("zip archive is empty")
	}
	return fs, nil
}

func checkEntryName(name string) error {
	switch {
	case name == "":
		return errors.New("zip entry with an empty name")
	case strings.HasPrefix(name, "/") || strings.Contains(name, "\\") || strings.Contains(name, "\x00"):
		return fmt.Errorf("zip entry %q: not a safe relative path", name)
	case len(name) >= 2 && name[1] == ':':
		return fmt.Errorf("zip entry %q: not a safe relative path", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return fmt.Errorf("zip entry %q: path traversal", name)
		}
	}
	if c := path.Clean(name); c != strings.TrimSuffix(name, "/") && c+"/" != name {
		return fmt.Errorf("zip entry %q: not a clean path", name)
	}
	return nil
}

// has reports whether the entry exists.
func (fs *zipFS) has(name string) bool { _, ok := fs.files[name]; return ok }

// read returns an entry's bytes. limit bounds the size; so does the
// archive's own size times 64, which is enough for any real compression
// ratio and keeps a zip bomb from inflating (0: that bound alone).
//
// The buffer is allocated once at the declared size when that size cannot
// lie about memory: a stored entry's bytes lie inside the archive, so its
// header cannot claim more than the archive holds. A compressed entry's
// buffer grows as data arrives, so a lying header cannot make it allocate.
// Either way the entry is read to its end, which makes archive/zip check
// its CRC-32.
func (fs *zipFS) read(name string, limit int64) ([]byte, error) {
	f, ok := fs.files[name]
	if !ok {
		return nil, fmt.Errorf("entry %s: missing", name)
	}
	if bomb := fs.size * 64; limit <= 0 || limit > bomb {
		limit = bomb
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("entry %s: %d bytes exceeds the limit of %d", name, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", name, err)
	}
	defer rc.Close()
	n := int64(f.UncompressedSize64)
	initial := min(n, readChunk)
	if f.Method == zip.Store && n <= fs.size {
		initial = n
	}
	buf, err := readExact(rc, n, initial)
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", name, err)
	}
	return buf, nil
}

// programSize checks the declared size of an entry that holds a program
// or a config (JSON, pickle) against the ProgramBytes limit, so that an
// oversized one is named by the limit rather than by read's bound.
func (fs *zipFS) programSize(name string) error {
	f, ok := fs.files[name]
	if !ok {
		return fmt.Errorf("entry %s: missing", name)
	}
	return fs.lim.Program("entry "+name, int64(min(f.UncompressedSize64, math.MaxInt64)))
}

// readTensors reads an entry that holds tensor data (a weight file, a
// torch.save storage), charging its declared size to the archive's budget
// before anything is allocated; limit is as for read.
func (fs *zipFS) readTensors(name string, limit int64) ([]byte, error) {
	f, ok := fs.files[name]
	if !ok {
		return nil, fmt.Errorf("entry %s: missing", name)
	}
	if f.UncompressedSize64 > math.MaxInt64 {
		return nil, fmt.Errorf("entry %s: size %d is out of range", name, f.UncompressedSize64)
	}
	if err := fs.budget.Take("entry "+name, int64(f.UncompressedSize64)); err != nil {
		return nil, err
	}
	return fs.read(name, limit)
}

// nested opens an entry that is itself a zip archive (a torch.save file
// inside a .pt2) for reading at random. A stored entry is read in place
// through a section of the archive, so the nested archive is never held
// in memory whole, only the parts read from it; it is read through once
// first so that archive/zip checks its size and CRC-32. A compressed entry
// is inflated into memory.
func (fs *zipFS) nested(name string) (io.ReaderAt, int64, error) {
	f, ok := fs.files[name]
	if !ok {
		return nil, 0, fmt.Errorf("entry %s: missing", name)
	}
	if f.Method != zip.Store {
		b, err := fs.read(name, 0)
		if err != nil {
			return nil, 0, err
		}
		return bytes.NewReader(b), int64(len(b)), nil
	}
	off, err := f.DataOffset()
	if err != nil {
		return nil, 0, fmt.Errorf("entry %s: %w", name, err)
	}
	n := f.UncompressedSize64
	if off < 0 || off > fs.size || n > uint64(fs.size-off) {
		return nil, 0, fmt.Errorf("entry %s: %d bytes at offset %d run past the end of the %d-byte archive", name, n, off, fs.size)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, 0, fmt.Errorf("entry %s: %w", name, err)
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return nil, 0, fmt.Errorf("entry %s: %w", name, err)
	}
	return io.NewSectionReader(fs.r, off, int64(n)), int64(n), nil
}

// readChunk is the first buffer size for an entry whose declared size is
// not trusted; the buffer doubles from there up to the declared size.
const readChunk = 1 << 20

// readExact reads exactly n bytes and then the end of r into a buffer of
// capacity initial at first, grown by doubling up to n; the result's
// capacity is n once all n bytes have arrived. Fewer or more bytes than n
// is an error.
func readExact(r io.Reader, n, initial int64) ([]byte, error) {
	buf := make([]byte, 0, initial)
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			bigger := make([]byte, len(buf), min(n, max(2*int64(cap(buf)), readChunk)))
			copy(bigger, buf)
			buf = bigger
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			if int64(len(buf)) == n {
				return buf, nil // the CRC was checked at the end
			}
			return nil, fmt.Errorf("has %d bytes, header says %d", len(buf), n)
		}
		if err != nil {
			return nil, err
		}
	}
	// Read to the end: archive/zip checks the CRC there, and an entry
	// longer than its header says is caught here.
	var extra [1]byte
	for range 100 {
		m, err := r.Read(extra[:])
		if m > 0 {
			return nil, fmt.Errorf("has more bytes than the %d its header says", n)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, io.ErrNoProgress
}

// withPrefix lists the entries under dir (which ends in "/"), in order.
func (fs *zipFS) withPrefix(dir string) []string {
	var out []string
	for _, n := range fs.order {
		if strings.HasPrefix(n, dir) {
			out = append(out, n)
		}
	}
	return out
}
