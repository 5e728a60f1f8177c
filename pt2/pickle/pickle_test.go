package pickle

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"testing"
)

// samples are Python's pickle.dumps of
//
//	((1, -2, 300, 70000, -70000, 2**70, -(2**70), 1.5, 'héllo', b'by\x00tes', None, True, False),
//	 [1, [2, 3]], {'a': 1, 'b': (2, 3)}, frozenset(), set())
//
// at protocols 0 through 5.
var samples = []string{
	"282849310a492d320a493330300a4937303030300a492d37303030300a4c313138303539313632303731373431313330333432344c0a4c2d313138303539313632303731373431313330333432344c0a46312e350a5668e96c6c6f0a70300a635f636f646563730a656e636f64650a70310a285662795c75303030307465730a70320a566c6174696e310a70330a7470340a5270350a4e4930310a4930300a7470360a286c70370a49310a61286c70380a49320a6149330a6161286470390a56610a7031300a49310a7356620a7031310a2849320a49330a747031320a73635f5f6275696c74696e5f5f0a66726f7a656e7365740a7031330a28286c7031340a747031350a527031360a635f5f6275696c74696e5f5f0a7365740a7031370a28286c7031380a747031390a527032300a747032310a2e",
	"28284b014afeffffff4d2c014a701101004a90eefeff4c313138303539313632303731373431313330333432344c0a4c2d313138303539313632303731373431313330333432344c0a473ff8000000000000580600000068c3a96c6c6f7100635f636f646563730a656e636f64650a7101285806000000627900746573710258060000006c6174696e3171037471045271054e4930310a4930300a7471065d7107284b015d7108284b024b0365657d710928580100000061710a4b01580100000062710b284b024b0374710c75635f5f6275696c74696e5f5f0a66726f7a656e7365740a710d285d710e74710f527110635f5f6275696c74696e5f5f0a7365740a7111285d71127471135271147471152e",
	"800228284b014afeffffff4d2c014a701101004a90eefeff8a090000000000000000408a090000000000000000c0473ff8000000000000580600000068c3a96c6c6f7100635f636f646563730a656e636f64650a71015806000000627900746573710258060000006c6174696e3171038671045271054e88897471065d7107284b015d7108284b024b0365657d710928580100000061710a4b01580100000062710b4b024b0386710c75635f5f6275696c74696e5f5f0a66726f7a656e7365740a710d5d710e85710f527110635f5f6275696c74696e5f5f0a7365740a71115d71128571135271147471152e",
	"800328284b014afeffffff4d2c014a701101004a90eefeff8a090000000000000000408a090000000000000000c0473ff8000000000000580600000068c3a96c6c6f7100430662790074657371014e88897471025d7103284b015d7104284b024b0365657d71052858010000006171064b0158010000006271074b024b0386710875636275696c74696e730a66726f7a656e7365740a71095d710a85710b52710c636275696c74696e730a7365740a710d5d710e85710f5271107471112e",
	"800495760000000000000028284b014afeffffff4d2c014a701101004a90eefeff8a090000000000000000408a090000000000000000c0473ff80000000000008c0668c3a96c6c6f944306627900746573944e888974945d94284b015d94284b024b0365657d94288c0161944b018c0162944b024b038694752891948f9474942e",
	"800595760000000000000028284b014afeffffff4d2c014a701101004a90eefeff8a090000000000000000408a090000000000000000c0473ff80000000000008c0668c3a96c6c6f944306627900746573944e888974945d94284b015d94284b024b0365657d94288c0161944b018c0162944b024b038694752891948f9474942e",
}

const want = `((1, -2, 300, 70000, -70000, 1180591620717411303424, -1180591620717411303424, 1.5, 'héllo', b'by\x00tes', None, True, False), [1, [2, 3]], {'a': 1, 'b': (2, 3)}, {}, {})`

// testFind allows what Python's pickler uses for bytes and sets before
// protocol 4.
func testFind(module, name string) (Global, error) {
	g := Global{Module: module, Name: name}
	switch module + "." + name {
	case "_codecs.encode":
		g.Call = func(a Tuple) (any, error) {
			if len(a) == 0 {
				return nil, fmt.Errorf("no arguments")
			}
			s, _ := a[0].(string)
			b := make([]byte, 0, len(s))
			for _, r := range s {
				b = append(b, byte(r))
			}
			return b, nil
		}
	case "__builtin__.set", "__builtin__.frozenset", "builtins.set", "builtins.frozenset":
		g.Call = func(a Tuple) (any, error) {
			s := &Set{}
			if len(a) == 1 {
				if l, ok := a[0].(*List); ok {
					s.Items = l.Items
				}
			}
			return s, nil
		}
	default:
		return g, fmt.Errorf("global %s.%s is not allowed", module, name)
	}
	return g, nil
}

func repr(v any) string { return reprD(v, 0) }

func reprD(v any, depth int) string {
	if depth > 20 {
		return "..."
	}
	repr := func(v any) string { return reprD(v, depth+1) }
	join := func(items []any) string {
		parts := make([]string, len(items))
		for i, x := range items {
			parts[i] = repr(x)
		}
		return strings.Join(parts, ", ")
	}
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return fmt.Sprint(x)
	case *big.Int:
		return x.String()
	case float64:
		return fmt.Sprint(x)
	case string:
		return "'" + x + "'"
	case []byte:
		return fmt.Sprintf("b'%s'", strings.ReplaceAll(string(x), "\x00", `\x00`))
	case Tuple:
		return "(" + join(x) + ")"
	case *List:
		return "[" + join(x.Items) + "]"
	case *Set:
		return "{" + join(x.Items) + "}"
	case *Dict:
		parts := make([]string, len(x.Keys))
		for i := range x.Keys {
			parts[i] = repr(x.Keys[i]) + ": " + repr(x.Values[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("<%T>", v)
}

func TestProtocols(t *testing.T) {
	for p, h := range samples {
		data, _ := hex.DecodeString(h)
		v, err := (&Unpickler{Find: testFind}).Load(data)
		if err != nil {
			t.Errorf("protocol %d: %v", p, err)
			continue
		}
		if got := repr(v); got != want {
			t.Errorf("protocol %d:\n got %s\nwant %s", p, got, want)
		}
	}
}

func TestRejects(t *testing.T) {
	cases := map[string]string{
		"cos\nsystem\n(S'echo hi'\ntR.":         "os.system",
		"\x80\x02cbuiltins\neval\nq\x00.":       "builtins.eval",
		"\x80\x04\x8c\x02os\x8c\x06system\x93.": "os.system",
		"(i__main__\nEvil\n.":                   "unsupported opcode",
		"\x80\x02X\xff\xff\xff\x7fabc.":         "truncated",
		"\x80\x02\x8b\xff\xff\xff\xff.":         "truncated",
		"\x80\x02h\x05.":                        "memo",
		"\x80\x02t.":                            "MARK",
		"\x80\x02K\x01K\x02.":                   "STOP",
		"\x80\x02(K\x01\x85.":                   "STOP",
		"\x80\x02K\x01(\x85.":                   "underflow",
		"\x80\x02Q.":                            "underflow",
		"\x80\x02K\x01Q.":                       "persistent",
		"\x80\x02}]K\x01s.":                     "unhashable",
		"\x80\x09.":                             "protocol",
		"":                                      "truncated",
	}
	for in, substr := range cases {
		_, err := (&Unpickler{}).Load([]byte(in))
		if err == nil || !strings.Contains(err.Error(), substr) {
			t.Errorf("%q: error %v, want one mentioning %q", in, err, substr)
		}
	}
}

func TestSharedKeyBlowUp(t *testing.T) {
	// t0 = (); t_{i+1} = (t_i, t_i), 60 times, used as a dict key.
	p := []byte("\x80\x02}")
	p = append(p, ')')
	for i := 0; i < 60; i++ {
		p = append(p, '2', 0x86) // DUP, TUPLE2
	}
	p = append(p, 'N', 's', '.')
	if _, err := (&Unpickler{}).Load(p); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("error %v", err)
	}
}
