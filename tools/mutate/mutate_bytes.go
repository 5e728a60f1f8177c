package main

import (
	"bytes"
	"math/rand"
	"regexp"
	"sort"
	"strings"
)

// mutateBytes damages binary data: truncates, extends, overwrites or
// deletes bytes, or copies a span over another.
func mutateBytes(r *rand.Rand, b []byte) []byte {
	b = append([]byte(nil), b...)
	for n := 1 + r.Intn(3); n > 0; n-- {
		switch op := r.Intn(7); {
		case len(b) == 0 || op == 0: // extend
			b = append(b, bytes.Repeat([]byte{byte(r.Intn(256))}, 1+r.Intn(64))...)
		case op == 1: // truncate
			b = b[:r.Intn(len(b))]
		case op == 2: // delete a span
			i := r.Intn(len(b))
			j := min(len(b), i+1+r.Intn(16))
			b = append(b[:i:i], b[j:]...)
		case op == 3: // an interesting byte
			b[r.Intn(len(b))] = []byte{0, 1, 0x7f, 0x80, 0xff, '(', ']', '.', 'K', 'X'}[r.Intn(10)]
		case op == 4: // copy a span over another
			i, j := r.Intn(len(b)), r.Intn(len(b))
			copy(b[j:], b[i:min(len(b), i+1+r.Intn(16))])
		default: // random bytes
			for k := 1 + r.Intn(4); k > 0; k-- {
				b[r.Intn(len(b))] = byte(r.Intn(256))
			}
		}
	}
	return b
}

// MLIR mutation works on tokens: numbers (dims, attribute values), element
// types, op names and value names are replaced by others of their kind;
// lines are dropped, doubled or swapped; or bytes are damaged.
var (
	mlirNumber = regexp.MustCompile(`-?\d+(\.\d+)?([eE][-+]?\d+)?`)
	mlirElem   = regexp.MustCompile(`\b(i1|i4|i8|i16|i32|i64|ui8|ui16|ui32|ui64|f8E4M3FN|f8E5M2|bf16|f16|f32|f64|complex<f32>|complex<f64>|index)\b`)
	mlirOp     = regexp.MustCompile(`\b(stablehlo|chlo|func|check)\.[a-z_]+\b`)
	mlirValue  = regexp.MustCompile(`%[A-Za-z0-9_#]+`)
)

var elemTypes = []string{"i1", "i4", "i8", "i16", "i32", "i64", "ui8", "ui32", "ui64", "f8E4M3FN", "f8E5M2", "bf16", "f16", "f32", "f64", "complex<f32>", "complex<f64>", "index"}

var mlirNumbers = []string{"0", "1", "-1", "2", "3", "4", "7", "8", "16", "255", "256", "-128", "65536", "2147483647", "2147483648",
	"-2147483648", "4294967296", "9223372036854775807", "-9223372036854775808", "0.5", "-0.0", "1e38", "3.5e+38", "1e-45", "1000000"}

func mutateMLIR(r *rand.Rand, src []byte) []byte {
	s := string(src)
	for n := 1 + r.Intn(2); n > 0; n-- {
		switch r.Intn(10) {
		case 0, 1, 2, 8:
			s = replaceOne(r, s, mlirNumber, func(cur string) string { return other(r, mlirNumbers, cur) })
		case 3:
			s = replaceOne(r, s, mlirElem, func(cur string) string { return other(r, elemTypes, cur) })
		case 4:
			ops := append(distinct(mlirOp.FindAllString(s, -1)), "stablehlo.add", "stablehlo.multiply", "stablehlo.tanh",
				"stablehlo.dot_general", "stablehlo.reshape", "stablehlo.convert", "stablehlo.compare", "stablehlo.select")
			s = replaceOne(r, s, mlirOp, func(cur string) string { return other(r, ops, cur) })
		case 5:
			vals := distinct(mlirValue.FindAllString(s, -1))
			s = replaceOne(r, s, mlirValue, func(cur string) string { return other(r, append(vals, "%0", "%arg0"), cur) })
		case 6:
			lines := strings.Split(s, "\n")
			i, j := r.Intn(len(lines)), r.Intn(len(lines))
			if i == j {
				j = (i + 1) % len(lines)
			}
			switch r.Intn(3) {
			case 0:
				lines = append(lines[:i:i], lines[i+1:]...)
			case 1:
				lines = append(lines[:i:i], append([]string{lines[j]}, lines[i:]...)...)
			default:
				lines[i], lines[j] = lines[j], lines[i]
			}
			s = strings.Join(lines, "\n")
		default:
			s = string(mutateBytes(r, []byte(s)))
		}
	}
	return []byte(s)
}

// replaceOne replaces one match of re, chosen at random, with f(match).
// A match that continues a name or a type (%12, #loc3, f32) is not one;
// a dim after 'x' (2x3xf32) is.
func replaceOne(r *rand.Rand, s string, re *regexp.Regexp, f func(string) string) string {
	var locs [][]int
	for _, l := range re.FindAllStringIndex(s, -1) {
		if l[0] > 0 && s[l[0]] != '%' {
			if c := s[l[0]-1]; c != 'x' && (isWordByte(c) || strings.IndexByte("%#@", c) >= 0) {
				continue
			}
		}
		locs = append(locs, l)
	}
	if len(locs) == 0 {
		return s
	}
	l := locs[r.Intn(len(locs))]
	return s[:l[0]] + f(s[l[0]:l[1]]) + s[l[1]:]
}

func distinct(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// other picks an element of xs other than cur, if there is one.
func other(r *rand.Rand, xs []string, cur string) string {
	for range 8 {
		if x := xs[r.Intn(len(xs))]; x != cur {
			return x
		}
	}
	return cur + "0"
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
