// Package pickle reads Python pickles without executing them.
//
// The unpickler is a stack machine over the pickle opcodes (protocols 0-5).
// It never imports or calls anything by itself: every global a pickle names
// is resolved through the caller's Find function, which returns a Callable
// for the few globals it allows (for torch files: the tensor and storage
// rebuild functions, OrderedDict) and an error for every other one. So a
// malicious pickle cannot run code; at worst it is rejected with an error
// naming the global it asked for.
package pickle

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// A decoded value is one of: nil (None), bool, int64, *big.Int (integers
// beyond int64), float64, string, []byte, Tuple, *List, *Dict, *Set,
// Global (a resolved-but-uncalled global from Find), or whatever a Callable
// returned.

// Tuple is a Python tuple.
type Tuple []any

// List is a Python list (a pointer, so that APPEND mutates shared copies).
type List struct{ Items []any }

// Set is a Python set or frozenset.
type Set struct{ Items []any }

// Dict is a Python dict (or OrderedDict), preserving insertion order.
type Dict struct {
	Keys   []any
	Values []any
	index  map[string]int
}

// NewDict returns an empty dict.
func NewDict() *Dict { return &Dict{index: map[string]int{}} }

// Set inserts or replaces key; it fails for unhashable keys.
func (d *Dict) Set(key, val any) error {
	k, err := keyOf(key)
	if err != nil {
		return err
	}
	if d.index == nil {
		d.index = map[string]int{}
	}
	if i, ok := d.index[k]; ok {
		d.Values[i] = val
		return nil
	}
	d.index[k] = len(d.Keys)
	d.Keys = append(d.Keys, key)
	d.Values = append(d.Values, val)
	return nil
}

// Get looks a key up.
func (d *Dict) Get(key any) (any, bool) {
	k, err := keyOf(key)
	if err != nil {
		return nil, false
	}
	i, ok := d.index[k]
	if !ok {
		return nil, false
	}
	return d.Values[i], true
}

// Len is the number of entries.
func (d *Dict) Len() int { return len(d.Keys) }

// Callable is a global the caller allowed: REDUCE, NEWOBJ and friends call
// it with the pickled arguments.
type Callable func(args Tuple) (any, error)

// Global is what Find returns: a named Callable.
type Global struct {
	Module, Name string
	Call         Callable
}

// String is "module.name".
func (g Global) String() string { return g.Module + "." + g.Name }

// Stater is implemented by objects that accept BUILD (__setstate__).
type Stater interface {
	SetState(state any) error
}

// Limits on dict keys: tuples may share parts, so the walk is bounded by
// the number of parts as well as the depth.
const (
	maxKeyDepth = 64
	maxKeyParts = 1 << 12
)

func keyOf(v any) (string, error) {
	budget := maxKeyParts
	return hashKey(v, 0, &budget)
}

// hashKey returns a canonical string for a hashable value.
func hashKey(v any, depth int, budget *int) (string, error) {
	if *budget--; depth > maxKeyDepth || *budget < 0 {
		return "", fmt.Errorf("pickle: dict key too large")
	}
	switch x := v.(type) {
	case nil:
		return "n", nil
	case bool:
		if x { // True == 1 in Python
			return "i1", nil
		}
		return "i0", nil
	case int64:
		return "i" + strconv.FormatInt(x, 10), nil
	case *big.Int:
		return "i" + x.String(), nil
	case float64:
		if x == float64(int64(x)) {
			return "i" + strconv.FormatInt(int64(x), 10), nil
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64), nil
	case string:
		return "s" + x, nil
	case []byte:
		return "b" + string(x), nil
	case Tuple:
		parts := make([]string, len(x))
		for i, e := range x {
			k, err := hashKey(e, depth+1, budget)
			if err != nil {
				return "", err
			}
			parts[i] = strconv.Itoa(len(k)) + ":" + k
		}
		return "t(" + strings.Join(parts, ",") + ")", nil
	case Global:
		return "g" + x.String(), nil
	}
	return "", fmt.Errorf("pickle: unhashable key of type %T", v)
}
