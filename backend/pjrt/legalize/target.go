package legalize

import (
	"sort"

	"github.com/torchtpu/torchtpu/dtype"
)

// Target is what one PJRT plugin lacks: the constructs the passes rewrite
// for it. Every entry comes from the plugin's own compile errors or from
// results that fail the StableHLO conformance suite on it
// (backend/pjrt/testdata/xla_cpu_conformance_failures.txt for xla-cpu);
// the reason is kept beside it.
type Target struct {
	Name string
	// Dynamic: the plugin compiles programs with ? dims. None does (XLA:
	// "Unbounded dynamism is disabled").
	Dynamic bool
	// Quant: the plugin compiles !quant.uniform types and
	// uniform_quantize/dequantize. XLA's StableHLO import refuses them
	// ("can't be translated to XLA HLO").
	Quant bool
	// Ops the plugin refuses to compile, each with the reason; the chlo
	// pass rewrites them.
	Ops map[string]string
	// Types the plugin cannot transfer or compute; the types pass carries
	// them in a wider type.
	Types map[dtype.DType]string
	// Fixes names the rewrites of ops the plugin computes against the spec
	// (fixes.go); each with the reason.
	Fixes map[string]string
}

// xlaOps are the ops every XLA plugin of the pinned versions refuses: its
// StableHLO import does not register them ("unregistered operation" or
// "can't be translated to XLA HLO").
var xlaOps = map[string]string{
	"chlo.mulhi":              "not registered by XLA's StableHLO import",
	"chlo.scan":               "not registered by XLA's StableHLO import",
	"stablehlo.sign/unsigned": "XLA's verifier refuses sign of unsigned integers",
	"stablehlo.cbrt/complex":  "XLA's verifier wants a floating element type for cbrt",
}

// xlaTypes are the element types XLA's plugins cannot transfer (PJRT
// element types it does not read back) or compile (constants, dot).
var xlaTypes = map[dtype.DType]string{
	dtype.I2:            "PJRT has no transfer for 2-bit integers",
	dtype.I4:            "PJRT has no transfer for 4-bit integers on the CPU plugin",
	dtype.U2:            "PJRT has no transfer for 2-bit integers",
	dtype.U4:            "PJRT has no transfer for 4-bit integers on the CPU plugin",
	dtype.F4E2M1FN:      "XLA:CPU refuses f4E2M1FN constants",
	dtype.F6E2M3FN:      "XLA:CPU refuses f6E2M3FN constants",
	dtype.F6E3M2FN:      "XLA:CPU refuses f6E3M2FN constants",
	dtype.F8E3M4:        "XLA:CPU's dot of f8E3M4 fails in its LLVM lowering",
	dtype.F8E4M3:        "no PJRT transfer of f8E4M3 in the binding",
	dtype.F8E4M3FNUZ:    "no PJRT transfer of f8E4M3FNUZ in the binding",
	dtype.F8E4M3B11FNUZ: "no PJRT transfer of f8E4M3B11FNUZ in the binding",
	dtype.F8E5M2FNUZ:    "no PJRT transfer of f8E5M2FNUZ in the binding",
	dtype.F8E8M0FNU:     "no PJRT transfer of f8E8M0FNU in the binding",
}

// xlaFixes are the ops XLA:CPU computes against the spec (each measured
// on the StableHLO suite or the fixtures; fixes.go rewrites them).
var xlaFixes = map[string]string{
	"minmax-nan":          "maximum/minimum of NaN and +-Inf return the infinity (interpret/maximum.mlir, minimum.mlir: bf16, f16, f32, f64); the spec propagates NaN",
	"complex-minmax":      "maximum/minimum of complex numbers with equal real parts (0 and -0) do not compare the imaginary parts (maximum.mlir c64, c128)",
	"bool-arith":          "add and multiply of i1 are computed as one-bit integers (1 + 1 = 0); the spec's are or and and (interpret/add.mlir, testdata/add_qi8.mlir)",
	"bitcast-i1":          "a bitcast_convert between i1 and a wider type crashes XLA:CPU's compiler (SIGSEGV, interpret/bitcast_convert.mlir)",
	"gather-offset-order": "a gather whose offset dims come before its batch dims, fused with a select after it, gives mixed-up results (testdata/gather_float32_10_10_10_*.mlir)",
	"erf-saturate":        "chlo.erf of large |x| is 1 - 2^-24, not 1 (the fixtures' gelu_float32: gelu(-1e30) = -8.9e22, PyTorch -0)",
}

// cpuOps are what XLA:CPU lacks beyond the import's list.
var cpuOps = merge(xlaOps, map[string]string{
	"chlo.ragged_dot": "XLA:CPU: HLO opcode ragged-dot is not supported by its ThunkEmitter",
})

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

var targets = map[string]*Target{
	"xla-cpu": {Name: "xla-cpu", Ops: cpuOps, Types: xlaTypes, Fixes: xlaFixes},
	// libtpu and the CUDA plugin share XLA's StableHLO import: the same
	// ops are refused. Their transfers and kernels differ; until measured
	// on the devices (scripts/device-check.sh) the CPU plugin's list is
	// used, which only costs a rewrite where one was not needed.
	"tpu":  {Name: "tpu", Ops: xlaOps, Types: xlaTypes, Fixes: xlaFixes},
	"cuda": {Name: "cuda", Ops: xlaOps, Types: xlaTypes, Fixes: xlaFixes},
}

// TargetFor returns the target of a plugin kind ("xla-cpu", "tpu:1" is
// "tpu"); an unknown kind gets XLA's lists.
func TargetFor(kind string) *Target {
	for i := 0; i < len(kind); i++ {
		if kind[i] == ':' {
			kind = kind[:i]
			break
		}
	}
	if t, ok := targets[kind]; ok {
		return t
	}
	return &Target{Name: kind, Ops: xlaOps, Types: xlaTypes, Fixes: xlaFixes}
}

// Kinds lists the plugin kinds with a target of their own, sorted.
func Kinds() []string {
	out := make([]string, 0, len(targets))
	for k := range targets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
