package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"sort"
	"strconv"
)

// JSON mutation: the document is decoded into plain values (numbers kept
// as written), one to three nodes are changed the way a hand edit or a
// bad writer would (a number, a string, a list, a key), and it is written
// back. Decoding fails on Python's bare NaN / Infinity, so those are
// quoted first (the readers accept both spellings).

// interestingInts are sizes, indexes and dtypes at the edges.
var interestingInts = []string{
	"0", "1", "-1", "2", "3", "7", "8", "9", "12", "13", "16", "255", "256", "-128", "65535", "65536",
	"2147483647", "2147483648", "-2147483648", "4294967296", "9007199254740993",
	"9223372036854775807", "-9223372036854775808", "18446744073709551616", "99999999999999999999999",
	"1.5", "-0.0", "1e308", "-1e308", "1e-320", "0.5",
}

// mutateJSON returns a mutated copy of the JSON document data, or nil
// when data is not JSON (the caller mutates bytes instead).
func mutateJSON(r *rand.Rand, data []byte, extraStrings []string) []byte {
	dec := json.NewDecoder(bytes.NewReader(quoteBareNonFinite(data)))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil
	}
	for n := 1 + r.Intn(3); n > 0; n-- {
		nodes := collect(doc)
		strs := append(stringsOf(nodes), extraStrings...)
		doc = mutateNode(r, doc, nodes[r.Intn(len(nodes))], nodes, strs)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// node is a value in the document with a way to replace it.
type node struct {
	v   any
	set func(any) // nil for the root
}

func collect(doc any) []node {
	var out []node
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		out = append(out, node{v, set})
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k], func(nv any) { x[k] = nv })
			}
		case []any:
			for i := range x {
				walk(x[i], func(nv any) { x[i] = nv })
			}
		}
	}
	walk(doc, nil)
	return out
}

func stringsOf(nodes []node) []string {
	var out []string
	for _, n := range nodes {
		switch x := n.v.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			for k := range x {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// mutateNode changes n and returns the (possibly new) document root.
func mutateNode(r *rand.Rand, doc any, n node, all []node, strs []string) any {
	replace := func(v any) any {
		if n.set == nil {
			return v
		}
		n.set(v)
		return doc
	}
	pickStr := func() string {
		if len(strs) == 0 {
			return "x"
		}
		return strs[r.Intn(len(strs))]
	}
	if r.Intn(8) == 0 { // any node: another type or another node's value
		switch r.Intn(6) {
		case 0:
			return replace(nil)
		case 1:
			return replace(true)
		case 2:
			return replace(map[string]any{})
		case 3:
			return replace([]any{})
		case 4:
			return replace(json.Number(interestingInts[r.Intn(len(interestingInts))]))
		default:
			return replace(deepCopy(all[r.Intn(len(all))].v))
		}
	}
	switch x := n.v.(type) {
	case json.Number:
		switch r.Intn(4) {
		case 0:
			if i, err := x.Int64(); err == nil {
				return replace(json.Number(itoa(i + int64(r.Intn(5)) - 2)))
			}
		case 1:
			if i, err := x.Int64(); err == nil {
				return replace(json.Number(itoa(-i)))
			}
		}
		return replace(json.Number(interestingInts[r.Intn(len(interestingInts))]))
	case string:
		switch r.Intn(6) {
		case 0:
			return replace("")
		case 1:
			if len(x) > 0 {
				return replace(x[:r.Intn(len(x))])
			}
		case 2:
			return replace(x + string("x0_.()[]'\"\\"[r.Intn(10)]))
		case 3:
			return replace([]string{"NaN", "Infinity", "-Infinity", "nan", "1e999"}[r.Intn(5)])
		}
		return replace(pickStr())
	case []any:
		if len(x) == 0 {
			return replace([]any{deepCopy(all[r.Intn(len(all))].v)})
		}
		i, j := r.Intn(len(x)), r.Intn(len(x))
		switch r.Intn(5) {
		case 0:
			return replace(append(append([]any(nil), x[:i]...), x[i+1:]...))
		case 1:
			return replace(append(append([]any(nil), x...), deepCopy(x[i])))
		case 2:
			y := append([]any(nil), x...)
			y[i], y[j] = y[j], y[i]
			return replace(y)
		case 3:
			return replace([]any{})
		default:
			y := append([]any(nil), x...)
			y[i] = deepCopy(all[r.Intn(len(all))].v)
			return replace(y)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			x[pickStr()] = deepCopy(all[r.Intn(len(all))].v)
			return doc
		}
		k := keys[r.Intn(len(keys))]
		switch r.Intn(4) {
		case 0:
			delete(x, k)
		case 1: // rename
			v := x[k]
			delete(x, k)
			x[pickStr()] = v
		case 2:
			x[pickStr()] = deepCopy(x[k])
		default:
			x[k] = deepCopy(all[r.Intn(len(all))].v)
		}
		return doc
	}
	return replace(json.Number(interestingInts[r.Intn(len(interestingInts))]))
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// quoteBareNonFinite quotes NaN, Infinity and -Infinity outside strings.
func quoteBareNonFinite(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	var out []byte
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			out = append(out, c)
			continue
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(data[i:], []byte(tok)) {
				out = append(out, '"')
				out = append(out, tok...)
				out = append(out, '"')
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, c)
		}
	}
	return out
}
