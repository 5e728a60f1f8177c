package pt2

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// maxEntries bounds the number of zip entries an archive may have.
const maxEntries = 1 << 20

// zipFS is a validated view of a zip archive's entries.
type zipFS struct {
	files map[string]*zip.File
	order []string // entry names in archive order
	size  int64    // archive size in bytes
}

// openZip checks that r is a zip whose entry names are all safe relative
// paths (no "..", no absolute paths, no backslashes, no duplicates).
func openZip(r io.ReaderAt, size int64) (*zipFS, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(z.File) > maxEntries {
		return nil, fmt.Errorf("zip has %d entries (limit %d)", len(z.File), maxEntries)
	}
	fs := &zipFS{files: make(map[string]*zip.File, len(z.File)), size: size}
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

// read returns an entry's bytes. limit bounds the size (0: the archive's own
// size times 64, which is enough for any real compression ratio); memory is
// grown as data arrives, so a lying header cannot make it allocate.
func (fs *zipFS) read(name string, limit int64) ([]byte, error) {
	f, ok := fs.files[name]
	if !ok {
		return nil, fmt.Errorf("entry %s: missing", name)
	}
	if limit <= 0 {
		limit = fs.size * 64
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("entry %s: %d bytes exceeds the limit of %d", name, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", name, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if f.Method == zip.Store && f.UncompressedSize64 <= uint64(fs.size) {
		buf.Grow(int(f.UncompressedSize64))
	}
	n, err := io.Copy(&buf, io.LimitReader(rc, int64(f.UncompressedSize64)+1))
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", name, err)
	}
	if uint64(n) != f.UncompressedSize64 {
		return nil, fmt.Errorf("entry %s: has %d bytes, header says %d", name, n, f.UncompressedSize64)
	}
	return buf.Bytes(), nil
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
