package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// signature spells each input as fmt's "%s%v;" of its dtype and shape.
func TestSignatureFormat(t *testing.T) {
	a, _ := literal.New(dtype.F32, []int64{2, 10, 64})
	b, _ := literal.New(dtype.I64, nil)
	c, _ := literal.New(dtype.BF16, []int64{0, 3})
	ins := []*literal.Literal{a, nil, b, c}
	var want strings.Builder
	for _, in := range ins {
		if in == nil {
			want.WriteString("none;")
			continue
		}
		fmt.Fprintf(&want, "%s%v;", in.DType, in.Shape)
	}
	if got := signature(ins); got != want.String() {
		t.Fatalf("signature = %q, want %q", got, want.String())
	}
}
