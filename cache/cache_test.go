package cache

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

func TestKeyIsContent(t *testing.T) {
	k1 := Key("module {}", "cpu", "1", map[string]string{"a": "1", "b": "2"})
	k2 := Key("module {}", "cpu", "1", map[string]string{"b": "2", "a": "1"})
	if k1 != k2 {
		t.Error("option order changes the key")
	}
	for _, other := range []string{
		Key("module { }", "cpu", "1", map[string]string{"a": "1", "b": "2"}),
		Key("module {}", "cuda", "1", map[string]string{"a": "1", "b": "2"}),
		Key("module {}", "cpu", "2", map[string]string{"a": "1", "b": "2"}),
		Key("module {}", "cpu", "1", map[string]string{"a": "1"}),
	} {
		if other == k1 {
			t.Error("different inputs give the same key")
		}
	}
	if !validKey(k1) {
		t.Errorf("key %q is not 64 hex digits", k1)
	}
}

func TestDiskRoundTripAndCorruption(t *testing.T) {
	d, err := OpenDisk(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	key := Key("m", "cpu", "1", nil)
	if _, found, err := d.Get(key); found || err != nil {
		t.Fatalf("empty store: found=%v err=%v", found, err)
	}
	payload := bytes.Repeat([]byte("plan"), 1000)
	if err := d.Put(key, payload); err != nil {
		t.Fatal(err)
	}
	got, found, err := d.Get(key)
	if err != nil || !found || !bytes.Equal(got, payload) {
		t.Fatalf("Get after Put: found=%v err=%v equal=%v", found, err, bytes.Equal(got, payload))
	}
	// Flip one payload byte, then truncate: both are detected and removed.
	p := d.Path(key)
	b, _ := os.ReadFile(p)
	b[len(b)-1] ^= 1
	os.WriteFile(p, b, 0o644)
	if _, found, err := d.Get(key); found || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("flipped byte: found=%v err=%v", found, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("corrupt entry was not removed")
	}
	d.Put(key, payload)
	b, _ = os.ReadFile(p)
	os.WriteFile(p, b[:len(b)/2], 0o644)
	if _, found, err := d.Get(key); found || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("truncated: found=%v err=%v", found, err)
	}
	if _, _, err := d.Get("../../etc/passwd"); err == nil {
		t.Error("a path as key was accepted")
	}
}

func TestDiskEvictsLeastRecentlyUsed(t *testing.T) {
	d, _ := OpenDisk(t.TempDir(), 0)
	keys := make([]string, 4)
	old := time.Now().Add(-time.Hour)
	for i := range keys {
		keys[i] = Key(fmt.Sprint(i), "cpu", "1", nil)
		if err := d.Put(keys[i], make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
		at := old.Add(time.Duration(i) * time.Minute) // key 0 oldest
		os.Chtimes(d.Path(keys[i]), at, at)
	}
	d.MaxBytes = 2500 // room for two entries of 1000 bytes plus headers
	if _, found, _ := d.Get(keys[0]); !found {
		t.Fatal("key 0 missing before eviction")
	}
	if err := d.Put(Key("new", "cpu", "1", nil), make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := d.Get(keys[0]); !found {
		t.Error("the entry used last was evicted")
	}
	for _, k := range keys[1:] {
		if _, found, _ := d.Get(k); found {
			t.Errorf("least recently used entry %s survived", k[:8])
		}
	}
}

func TestDiskConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	key := Key("shared", "cpu", "1", nil)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			d, _ := OpenDisk(dir, 1<<20)
			for i := 0; i < 20; i++ {
				if err := d.Put(key, bytes.Repeat([]byte{byte(w)}, 4096)); err != nil {
					t.Error(err)
				}
				if got, found, err := d.Get(key); err != nil || (found && len(got) != 4096) {
					t.Errorf("reader saw a partial entry: %d bytes, err %v", len(got), err)
				}
			}
		}(w)
	}
	wg.Wait()
}

func TestMemoryLRU(t *testing.T) {
	m := NewMemory(2)
	m.Put("a", 1)
	m.Put("b", 2)
	m.Get("a")
	m.Put("c", 3)
	if _, ok := m.Get("b"); ok {
		t.Error("b should have been evicted")
	}
	if v, ok := m.Get("a"); !ok || v != 1 {
		t.Error("a lost")
	}
	if m.Len() != 2 {
		t.Errorf("Len = %d", m.Len())
	}
}
