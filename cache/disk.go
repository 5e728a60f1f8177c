package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// magic starts every entry file; the header is magic, payload length
// (uint64 little-endian), SHA-256 of the payload, then the payload.
var magic = []byte("TTPUCACHE1\n")

const headerLen = 11 + 8 + 32

// ErrCorrupt marks an entry whose bytes fail their checks; the entry is
// removed and the caller recompiles.
var ErrCorrupt = errors.New("corrupt cache entry")

// Disk is an on-disk store of payloads by key, bounded by MaxBytes with
// least-recently-used eviction (use time is the file's modification time,
// refreshed on every hit).
type Disk struct {
	Dir      string
	MaxBytes int64 // 0 means unbounded
}

// OpenDisk creates the folder if needed.
func OpenDisk(dir string, maxBytes int64) (*Disk, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache dir %s: %w", dir, err)
	}
	return &Disk{Dir: dir, MaxBytes: maxBytes}, nil
}

// Path is the file that holds the entry for key (a key Get and Put accept).
func (d *Disk) Path(key string) string { return filepath.Join(d.Dir, key[:2], key+".bin") }

// Get returns the payload stored under key. found is false when there is
// none. A corrupt entry is removed and reported with ErrCorrupt.
func (d *Disk) Get(key string) (payload []byte, found bool, err error) {
	if !validKey(key) {
		return nil, false, fmt.Errorf("cache: invalid key %q", key)
	}
	p := d.Path(key)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cache: read %s: %w", p, err)
	}
	payload, err = decode(b)
	if err != nil {
		_ = os.Remove(p)
		return nil, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	return payload, true, nil
}

func decode(b []byte) ([]byte, error) {
	if len(b) < headerLen || !bytes.Equal(b[:len(magic)], magic) {
		return nil, fmt.Errorf("%w: bad header (%d bytes)", ErrCorrupt, len(b))
	}
	n := binary.LittleEndian.Uint64(b[len(magic):])
	body := b[headerLen:]
	if uint64(len(body)) != n {
		return nil, fmt.Errorf("%w: payload is %d bytes, header says %d (truncated?)", ErrCorrupt, len(body), n)
	}
	sum := sha256.Sum256(body)
	if !bytes.Equal(sum[:], b[len(magic)+8:headerLen]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	return body, nil
}

// header returns the header of an entry holding payload: what decode
// checks.
func header(payload []byte) [headerLen]byte {
	sum := sha256.Sum256(payload)
	var hdr [headerLen]byte
	copy(hdr[:], magic)
	binary.LittleEndian.PutUint64(hdr[len(magic):], uint64(len(payload)))
	copy(hdr[len(magic)+8:], sum[:])
	return hdr
}

// Put stores payload under key atomically (temporary file, then rename),
// then evicts old entries if the store is over its bound.
func (d *Disk) Put(key string, payload []byte) error {
	if !validKey(key) {
		return fmt.Errorf("cache: invalid key %q", key)
	}
	p := d.Path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	hdr := header(payload)
	_, err = tmp.Write(hdr[:])
	if err == nil {
		_, err = tmp.Write(payload)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("cache: write %s: %w", p, err)
	}
	return d.evict()
}

// evict removes least-recently-used entries until the store fits
// MaxBytes. It holds an exclusive lock on the folder meanwhile, so that
// concurrent processes do not evict twice.
func (d *Disk) evict() error {
	if d.MaxBytes <= 0 {
		return nil
	}
	lock, err := os.OpenFile(filepath.Join(d.Dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("cache: lock: %w", err)
	}
	defer lock.Close()
	if err := lockFile(lock); err != nil {
		return fmt.Errorf("cache: lock %s: %w", lock.Name(), err)
	}
	defer unlockFile(lock)
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var total int64
	err = filepath.WalkDir(d.Dir, func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(path, ".bin") {
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return nil
		}
		entries = append(entries, entry{path, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if err != nil {
		return fmt.Errorf("cache: scan: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].used.Before(entries[j].used) })
	for _, e := range entries {
		if total <= d.MaxBytes {
			break
		}
		if err := os.Remove(e.path); err == nil {
			total -= e.size
		}
	}
	return nil
}
