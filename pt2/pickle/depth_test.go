package pickle

import (
	"bytes"
	"errors"
	"testing"

	"github.com/torchtpu/torchtpu/limits"
)

// nestedLists pickles n lists nested in one another: [[[...]]].
func nestedLists(n int) []byte {
	p := []byte("\x80\x02")
	p = append(p, bytes.Repeat([]byte("]"), n)...)
	p = append(p, bytes.Repeat([]byte("a"), n-1)...)
	return append(p, '.')
}

func expectNesting(t *testing.T, what string, err error) {
	t.Helper()
	var le *limits.Error
	if !errors.As(err, &le) || le.Env != limits.EnvNesting {
		t.Errorf("%s: error %v, want the nesting limit", what, err)
	}
}

func TestDepthLimit(t *testing.T) {
	// 600 levels under the default limit of 500 fail; under 600 they load.
	_, err := (&Unpickler{}).Load(nestedLists(600))
	expectNesting(t, "600 nested lists", err)
	v, err := (&Unpickler{MaxDepth: 600}).Load(nestedLists(600))
	if err != nil {
		t.Fatalf("600 nested lists under 600: %v", err)
	}
	depth := 0
	for l, ok := v.(*List); ok; l, ok = l.Items[0].(*List) {
		depth++
		if len(l.Items) == 0 {
			break
		}
	}
	if depth != 600 {
		t.Errorf("loaded %d levels, want 600", depth)
	}

	// Protocol 0: tuples of tuples through MARKs; the open MARKs alone
	// count.
	p0 := append(bytes.Repeat([]byte("("), 600), bytes.Repeat([]byte("t"), 600)...)
	_, err = (&Unpickler{}).Load(append(p0, '.'))
	expectNesting(t, "600 open MARKs", err)

	// A list stored in the memo and extended afterwards: the depth read
	// back through BINGET is the grown one, not the one stored.
	pm := []byte("\x80\x02]q\x00")                    // L = [] memo 0
	pm = append(pm, bytes.Repeat([]byte("]"), 10)...) // 10 new lists
	pm = append(pm, bytes.Repeat([]byte("a"), 9)...)  // nested: depth 10
	pm = append(pm, 'a')                              // L.append(that): L depth 11
	pm = append(pm, "0h\x00\x85."...)                 // drop L, push memo 0, (L,)
	_, err = (&Unpickler{MaxDepth: 11}).Load(pm)
	expectNesting(t, "a tuple of a grown memoized list", err)
	if _, err := (&Unpickler{MaxDepth: 12}).Load(pm); err != nil {
		t.Errorf("depth 12 under 12: %v", err)
	}
}
