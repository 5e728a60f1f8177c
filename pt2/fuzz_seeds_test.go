package pt2

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Seeds for the fuzz targets: the archives in testdata (always present)
// and a sample of the fixtures in ../shared/fixtures (both layouts, torch
// 2.14 and 2.6), read at run time. Under CI=true missing fixtures fail the
// target; elsewhere the testdata seeds suffice.

// testdataArchives are the small archives of testdata, current and legacy
// layouts.
var testdataArchives = []string{"views", "views_legacy", "hop", "hop_legacy", "nonfinite", "nonfinite_legacy"}

// seedArchives returns the bytes of the testdata archives and of up to
// perDir fixture archives of at most maxSize bytes from each fixture
// folder, in a stable order.
func seedArchives(tb testing.TB, perDir int, maxSize int64) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, name := range testdataArchives {
		raw, err := os.ReadFile("testdata/" + name + ".pt2")
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, raw)
	}
	for _, path := range fixtureSample(tb, perDir, maxSize) {
		raw, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// fixtureSample lists up to perDir archives of at most maxSize bytes from
// each fixture folder, spread evenly over the folder's sorted listing.
func fixtureSample(tb testing.TB, perDir int, maxSize int64) []string {
	tb.Helper()
	root := filepath.Join("..", "..", "shared", "fixtures")
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("fixtures missing: %v", err)
		}
		return nil
	}
	var out []string
	for _, sub := range []string{"models", "models-torch2.6", "ops", "ops-torch2.6"} {
		files, _ := filepath.Glob(filepath.Join(root, sub, "*.pt2"))
		sort.Strings(files)
		var small []string
		for _, f := range files {
			if st, err := os.Stat(f); err == nil && st.Size() <= maxSize {
				small = append(small, f)
			}
		}
		if len(small) == 0 {
			tb.Fatalf("%s: no archive of at most %d bytes", filepath.Join(root, sub), maxSize)
		}
		step := max(1, len(small)/perDir)
		for i := 0; i < len(small) && i/step < perDir; i += step {
			out = append(out, small[i])
		}
	}
	return out
}

// zipEntries returns an archive's entries in order.
func zipEntries(tb testing.TB, raw []byte) (names []string, data [][]byte) {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range zr.File {
		rc, err := e.Open()
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
		names = append(names, e.Name)
		data = append(data, b)
	}
	return names, data
}

// entriesWithSuffix returns the contents of every entry of every seed
// archive whose name ends in one of the suffixes.
func entriesWithSuffix(tb testing.TB, archives [][]byte, suffixes ...string) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, raw := range archives {
		names, data := zipEntries(tb, raw)
		for i, n := range names {
			for _, s := range suffixes {
				if strings.HasSuffix(n, s) {
					out = append(out, data[i])
					break
				}
			}
		}
	}
	return out
}

// storeZip writes entries as an uncompressed zip (torch writes stored
// entries).
func storeZip(tb testing.TB, names []string, data [][]byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		if err == nil {
			_, err = w.Write(data[i])
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
