package pickle

import (
	"archive/zip"
	"bytes"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// FuzzUnpickle runs the stack machine on mutated pickles: Python's own
// pickles of every protocol (samples) and the data.pkl of real torch.save
// files (the sample inputs and legacy state dicts of the fixtures).
// Globals resolve as in torch files, persistent ids to themselves.
func FuzzUnpickle(f *testing.F) {
	for _, h := range samples {
		data, _ := hex.DecodeString(h)
		f.Add(data)
	}
	for _, p := range fixturePickles(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u := &Unpickler{Find: fuzzFind, PersistentLoad: func(pid any) (any, error) { return pid, nil }}
		v, err := u.Load(data)
		if err == nil {
			_ = repr(v)
		}
	})
}

// fuzzFind allows testFind's globals and those of torch.save files, each
// a callable that returns its arguments.
func fuzzFind(module, name string) (Global, error) {
	if g, err := testFind(module, name); err == nil {
		return g, nil
	}
	switch module {
	case "torch._utils", "collections", "torch":
		return Global{Module: module, Name: name, Call: func(a Tuple) (any, error) { return a, nil }}, nil
	}
	return Global{}, os.ErrPermission
}

// fixturePickles returns the data.pkl of the torch.save files inside a
// sample of the fixture archives (none when the fixtures are missing,
// except under CI=true, where that fails).
func fixturePickles(tb testing.TB) [][]byte {
	tb.Helper()
	root := filepath.Join("..", "..", "..", "shared", "fixtures")
	var files []string
	for _, sub := range []string{"models", "models-torch2.6", "ops", "ops-torch2.6"} {
		m, _ := filepath.Glob(filepath.Join(root, sub, "*.pt2"))
		sort.Strings(m)
		for i := 0; i < len(m); i += 1 + len(m)/6 {
			if st, err := os.Stat(m[i]); err == nil && st.Size() < 1<<20 {
				files = append(files, m[i])
			}
		}
	}
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("fixtures missing at %s", root)
		}
		return nil
	}
	var out [][]byte
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		for _, pt := range entries(tb, raw, ".pt") {
			for _, pkl := range entries(tb, pt, "data.pkl") {
				if len(pkl) <= 16<<10 {
					out = append(out, pkl)
				}
			}
		}
	}
	return out
}

// entries returns the contents of the zip's entries whose names end in
// suffix.
func entries(tb testing.TB, raw []byte, suffix string) [][]byte {
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, e := range zr.File {
		if !strings.HasSuffix(e.Name, suffix) {
			continue
		}
		rc, err := e.Open()
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
