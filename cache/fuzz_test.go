package cache

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzDecode feeds entry files to the decoder. An accepted entry is
// exactly the header of its payload followed by the payload (so encoding
// what was decoded gives the same bytes); a rejected one is ErrCorrupt;
// and any payload encodes to an entry that decodes to it. Through a Disk,
// a corrupt entry is reported and removed, never returned.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{"", "text\nfunc.func @main() {\n  func.return\n}\n", "serialized\n\x00\x01\x02"} {
		hdr := header([]byte(p))
		f.Add(append(hdr[:], p...))
		f.Add([]byte(p))
	}
	dir := f.TempDir()
	d, err := OpenDisk(dir, 0)
	if err != nil {
		f.Fatal(err)
	}
	key := Key("fuzz", "cpu", "1", nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		payload, err := decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
		} else {
			hdr := header(payload)
			if !bytes.Equal(append(hdr[:], payload...), b) {
				t.Fatal("an accepted entry is not the encoding of its payload")
			}
		}
		hdr := header(b)
		if back, err := decode(append(hdr[:], b...)); err != nil || !bytes.Equal(back, b) {
			t.Fatalf("encode then decode: %v", err)
		}
		// The same bytes as a file in a store.
		if err := os.MkdirAll(dir+"/"+key[:2], 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d.Path(key), b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, found, gerr := d.Get(key)
		switch {
		case err == nil && (!found || gerr != nil || !bytes.Equal(got, payload)):
			t.Fatalf("Get of a good entry: found=%v err=%v", found, gerr)
		case err != nil && (found || !errors.Is(gerr, ErrCorrupt)):
			t.Fatalf("Get of a corrupt entry: found=%v err=%v", found, gerr)
		case err != nil:
			if _, serr := os.Stat(d.Path(key)); !os.IsNotExist(serr) {
				t.Fatal("a corrupt entry was not removed")
			}
		}
	})
}
