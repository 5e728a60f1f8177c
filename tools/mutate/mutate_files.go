package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"strings"
)

// entry is one file of a zip archive.
type entry struct {
	name string
	data []byte
}

func unzip(raw []byte) ([]entry, error) {
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, entry{f.Name, b})
	}
	return out, nil
}

// rezip writes entries uncompressed, as torch does (so every CRC is
// right: the readers see the mutated contents, not a broken zip).
func rezip(es []entry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store})
		if err != nil {
			continue // a name archive/zip refuses: drop the entry
		}
		w.Write(e.data)
	}
	zw.Close()
	return buf.Bytes()
}

// mutateArchive returns a mutated copy of a .pt2 archive (or of a
// torch.save file nested in one) and a short description of what changed.
func mutateArchive(r *rand.Rand, raw []byte) ([]byte, string) {
	es, err := unzip(raw)
	if err != nil || len(es) == 0 {
		return mutateBytes(r, raw), "bytes"
	}
	var jsons, blobs, texts, nested []int
	for i, e := range es {
		switch {
		case strings.HasSuffix(e.name, ".json"):
			jsons = append(jsons, i)
		case strings.HasSuffix(e.name, ".pt"):
			nested = append(nested, i)
		case strings.HasSuffix(e.name, "archive_format") || strings.HasSuffix(e.name, "version") ||
			strings.HasSuffix(e.name, "byteorder") || strings.HasSuffix(e.name, "serialization_id"):
			texts = append(texts, i)
		default:
			blobs = append(blobs, i)
		}
	}
	roll := r.Intn(100)
	switch {
	case roll < 50 && len(jsons) > 0:
		i := jsons[r.Intn(len(jsons))]
		if m := mutateJSON(r, es[i].data, nil); m != nil {
			es[i].data = m
			return rezip(es), "json " + es[i].name
		}
		es[i].data = mutateBytes(r, es[i].data)
		return rezip(es), "bytes " + es[i].name
	case roll < 65 && len(nested) > 0:
		i := nested[r.Intn(len(nested))]
		var what string
		es[i].data, what = mutateTorchSave(r, es[i].data)
		return rezip(es), es[i].name + ": " + what
	case roll < 80 && len(blobs) > 0:
		i := blobs[r.Intn(len(blobs))]
		es[i].data = mutateBytes(r, es[i].data)
		return rezip(es), "bytes " + es[i].name
	case roll < 85 && len(texts) > 0:
		i := texts[r.Intn(len(texts))]
		es[i].data = []byte([]string{"", "pt2", "zip", "0", "1", "8", "7.1", "big", "little\n", "\x00"}[r.Intn(10)])
		return rezip(es), "text " + es[i].name
	case roll < 95:
		i, j := r.Intn(len(es)), r.Intn(len(es))
		switch r.Intn(3) {
		case 0:
			name := es[i].name
			es = append(es[:i:i], es[i+1:]...)
			return rezip(es), "drop " + name
		case 1:
			es[i].name, es[j].name = es[j].name, es[i].name
			return rezip(es), fmt.Sprintf("swap names %s %s", es[i].name, es[j].name)
		default:
			es = append(es, entry{es[i].name + "x", es[j].data})
			return rezip(es), "add " + es[i].name + "x"
		}
	}
	return mutateBytes(r, raw), "zip bytes"
}

// mutateTorchSave mutates a torch.save zip: its pickle (an opcode byte,
// an integer argument) or a storage.
func mutateTorchSave(r *rand.Rand, raw []byte) ([]byte, string) {
	es, err := unzip(raw)
	if err != nil || len(es) == 0 {
		return mutateBytes(r, raw), "bytes"
	}
	for k := 0; k < 4; k++ {
		i := r.Intn(len(es))
		if strings.HasSuffix(es[i].name, "data.pkl") || r.Intn(3) == 0 {
			es[i].data = mutateBytes(r, es[i].data)
			return rezip(es), "bytes " + es[i].name
		}
	}
	return mutateBytes(r, raw), "bytes"
}

// safetensorsNames are strings a mutated header may take.
var safetensorsNames = []string{"F32", "F16", "BF16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL", "C64", "F8_E4M3", "F8_E5M2",
	"X9", "input.0", "input.1", "input.10", "output.0", "__metadata__", "data_offsets", "shape", "dtype"}

// mutateSafetensors mutates an I/O file: mostly its JSON header (dtype,
// shape, offsets, names), sometimes the header length or the data.
func mutateSafetensors(r *rand.Rand, raw []byte) ([]byte, string) {
	if len(raw) < 8 {
		return mutateBytes(r, raw), "bytes"
	}
	n := binary.LittleEndian.Uint64(raw)
	if n > uint64(len(raw)-8) {
		return mutateBytes(r, raw), "bytes"
	}
	header, body := raw[8:8+n], raw[8+n:]
	roll := r.Intn(100)
	switch {
	case roll < 70:
		h := mutateJSON(r, header, safetensorsNames)
		if h == nil {
			break
		}
		for len(h)%8 != 0 {
			h = append(h, ' ')
		}
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		out = append(append(out, h...), body...)
		return out, "header"
	case roll < 80:
		out := append([]byte(nil), raw...)
		v := []uint64{0, 1, n - 1, n + 1, n + 8, uint64(len(raw)), 1 << 40, 1<<64 - 1}[r.Intn(8)]
		binary.LittleEndian.PutUint64(out, v)
		return out, "header length"
	case roll < 95:
		out := append([]byte(nil), raw[:8+n]...)
		return append(out, mutateBytes(r, body)...), "data"
	}
	return mutateBytes(r, raw), "bytes"
}
