package native

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// custom_call @shape_assertion, which jax.export writes into a
// shape-polymorphic program to check the shapes of a call (operand 0,
// the condition; the others, values for the {i} placeholders of the
// error_message attribute). A false condition is the run's error, with
// the program's message.
func init() {
	registerCustomCall("shape_assertion", func(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		if len(in) == 0 {
			return nil, fmt.Errorf("shape_assertion without a condition")
		}
		ok, err := scalarPred(in[0], "shape_assertion's condition")
		if err != nil {
			return nil, err
		}
		if ok {
			return make([]Value, len(op.Results)), nil
		}
		msg := "shape assertion failed"
		if s, isStr := op.Attr("error_message").(stablehlo.StringAttr); isStr {
			msg = string(s)
		}
		for i, v := range in[1:] {
			if l, err := valueTensor(v, "shape_assertion input"); err == nil && l.Len() == 1 {
				msg = strings.ReplaceAll(msg, fmt.Sprintf("{%d}", i), fmt.Sprint(l.Int64(0)))
			}
		}
		return nil, fmt.Errorf("shape assertion: %s", msg)
	})
}
