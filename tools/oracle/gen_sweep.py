"""A systematic sweep of the pointwise and reduction ops over dtypes, dtype
pairs, broadcasting, 0-dim operands, Python scalars, dims and keepdim:
every combination PyTorch itself accepts is exported and run eagerly, for
runtime/oracle_test.go (folder testdata/sweep).

    cd tools/oracle && /work/shared/tools/torch-oracle run sid -- python3 gen_sweep.py sweep
    rm -rf ../../runtime/testdata/sweep && mv sweep ../../runtime/testdata/sweep
"""
import json
import os
import sys

import torch
from safetensors.torch import save_file

torch.manual_seed(1)

F = torch.nn.functional


def values(dtype, shape, kind="any"):
    """Inputs with edge values mixed in, suited to the op's domain."""
    n = 1
    for s in shape:
        n *= s
    if dtype == torch.bool:
        return (torch.arange(n) % 3 == 0).reshape(shape)
    if not dtype.is_floating_point:
        info = torch.iinfo(dtype)
        lo, hi = max(info.min, -9), min(info.max, 9)
        if kind == "pos":
            lo = 1
        x = torch.randint(lo, hi + 1, (n,))
        return x.to(dtype).reshape(shape)
    if kind == "unit":
        x = torch.rand(n) * 1.8 - 0.9
    elif kind == "pos":
        x = torch.rand(n) * 4 + 0.05
    elif kind == "ge1":
        x = torch.rand(n) * 4 + 1
    else:
        x = torch.randn(n) * 3
        specials = [0.0, -0.0, 0.5, -1.5, 2.5]
        for i, s in enumerate(specials[: n // 3]):
            x[i * 3] = s
    return x.to(dtype).reshape(shape)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        out = self.fn(*xs)
        flat = []
        for o in (out if isinstance(out, tuple) and not hasattr(out, "indices") else (out,)):
            flat.extend(tuple(o) if isinstance(o, tuple) else [o])
        return tuple(flat)


CASES = []


def case(name, fn, *inputs):
    CASES.append((name, fn, inputs))


def dn(d):
    return str(d).replace("torch.", "")


UNARY_FLOAT = {
    "exp": (torch.exp, "any"), "log": (torch.log, "pos"), "sqrt": (torch.sqrt, "pos"), "rsqrt": (torch.rsqrt, "pos"),
    "sin": (torch.sin, "any"), "tanh": (torch.tanh, "any"), "sigmoid": (torch.sigmoid, "any"), "erf": (torch.erf, "any"),
    "erfc": (torch.erfc, "any"), "erfinv": (torch.erfinv, "unit"), "lgamma": (torch.lgamma, "pos"),
    "digamma": (torch.digamma, "pos"), "asin": (torch.asin, "unit"), "acosh": (torch.acosh, "ge1"),
    "atanh": (torch.atanh, "unit"), "sinh": (torch.sinh, "any"), "cosh": (torch.cosh, "any"),
    "asinh": (torch.asinh, "any"), "log2": (torch.log2, "pos"), "log10": (torch.log10, "pos"),
    "log1p": (torch.log1p, "pos"), "expm1": (torch.expm1, "any"), "exp2": (torch.exp2, "any"),
    "reciprocal": (torch.reciprocal, "pos"), "atan": (torch.atan, "any"),
}
for name, (fn, kind) in UNARY_FLOAT.items():
    for d in [torch.int32, torch.uint8, torch.bool, torch.float64, torch.float16]:
        case(f"{name}_{dn(d)}", fn, values(d, (2, 5), kind))

UNARY_SAME = {
    "abs": torch.abs, "neg": torch.neg, "sign": torch.sign, "floor": torch.floor, "ceil": torch.ceil,
    "round": torch.round, "trunc": torch.trunc, "square": torch.square, "bitwise_not": torch.bitwise_not,
    "logical_not": torch.logical_not, "relu": torch.relu, "hardtanh": F.hardtanh, "isnan": torch.isnan,
    "isinf": torch.isinf, "isfinite": torch.isfinite, "signbit": torch.signbit, "frac": torch.frac,
    "relu6": F.relu6, "gelu": F.gelu, "silu": F.silu, "elu": F.elu, "softplus": F.softplus,
    "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "mish": F.mish, "logit": torch.logit,
}
for name, fn in UNARY_SAME.items():
    for d in [torch.int8, torch.int16, torch.int64, torch.uint8, torch.bool, torch.float16, torch.bfloat16, torch.float64]:
        case(f"{name}_{dn(d)}", fn, values(d, (3, 4), "unit" if name == "logit" else "any"))

BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "remainder": torch.remainder, "fmod": torch.fmod, "pow": torch.pow, "atan2": torch.atan2,
    "hypot": torch.hypot, "copysign": torch.copysign, "xlogy": torch.xlogy, "logaddexp": torch.logaddexp,
    "maximum": torch.maximum, "minimum": torch.minimum, "fmax": torch.fmax, "fmin": torch.fmin,
    "eq": torch.eq, "lt": torch.lt, "ge": torch.ge, "bitwise_and": torch.bitwise_and,
    "bitwise_xor": torch.bitwise_xor, "shl": torch.bitwise_left_shift, "shr": torch.bitwise_right_shift,
    "logical_or": torch.logical_or, "floor_divide": torch.floor_divide,
}
PAIRS = [(torch.int8, torch.int16), (torch.uint8, torch.int8), (torch.bool, torch.int32),
         (torch.int16, torch.float16), (torch.float64, torch.int32), (torch.bool, torch.bool),
         (torch.uint8, torch.uint8), (torch.bfloat16, torch.float16)]
for name, fn in BINARY.items():
    nonzero = name in ("div_trunc", "div_floor", "remainder", "fmod", "floor_divide")
    for da, db in PAIRS:
        a = values(da, (3, 1))
        b = values(db, (4,), "pos" if nonzero or name == "pow" else "any")
        if name in ("shl", "shr") and not db.is_floating_point and db != torch.bool:
            b = b.abs() % 8 if db != torch.uint8 else b % 8
        case(f"{name}_{dn(da)}_{dn(db)}", fn, a, b)
    # 0-dim second operand and Python scalars.
    case(f"{name}_f32_0dim_i64", fn, values(torch.float32, (2, 3)), torch.tensor(3))
    case(f"{name}_i32_0dim_f64", fn, values(torch.int32, (2, 3), "pos"), torch.tensor(2.5, dtype=torch.float64))
    case(f"{name}_i16_pyint", lambda x, fn=fn: fn(x, 3), values(torch.int16, (2, 3)))
    case(f"{name}_u8_pyfloat", lambda x, fn=fn: fn(x, 1.5), values(torch.uint8, (2, 3), "pos"))

REDUCE = {
    "sum": lambda x, d, k: x.sum(d, keepdim=k), "mean": lambda x, d, k: x.mean(d, keepdim=k),
    "prod": lambda x, d, k: x.prod(d[0], keepdim=k), "amax": lambda x, d, k: x.amax(d, keepdim=k),
    "amin": lambda x, d, k: x.amin(d, keepdim=k), "argmax": lambda x, d, k: x.argmax(d[0], keepdim=k),
    "argmin": lambda x, d, k: x.argmin(d[0], keepdim=k), "max_dim": lambda x, d, k: x.max(d[0], keepdim=k),
    "min_dim": lambda x, d, k: x.min(d[0], keepdim=k), "all": lambda x, d, k: x.all(d[0], keepdim=k),
    "any": lambda x, d, k: x.any(d, keepdim=k), "var": lambda x, d, k: x.var(d, keepdim=k),
    "std": lambda x, d, k: x.std(d, correction=0, keepdim=k), "logsumexp": lambda x, d, k: x.logsumexp(d, keepdim=k),
    "cumsum": lambda x, d, k: x.cumsum(d[0]), "cumprod": lambda x, d, k: x.cumprod(d[0]),
    "cummax": lambda x, d, k: x.cummax(d[0]), "cummin": lambda x, d, k: x.cummin(d[0]),
    "norm": lambda x, d, k: torch.linalg.vector_norm(x, 2, d, keepdim=k),
    "count_nonzero": lambda x, d, k: torch.count_nonzero(x, d), "median": lambda x, d, k: x.median(d[0], keepdim=k),
    "nansum": lambda x, d, k: torch.nansum(x, d, keepdim=k),
}
for name, fn in REDUCE.items():
    for d in [torch.float64, torch.float16, torch.int8, torch.uint8, torch.bool]:
        for dims, keep in [((0,), False), ((-1,), True), ((0, 2), False)]:
            if len(dims) > 1 and name in ("prod", "argmax", "argmin", "max_dim", "min_dim", "all", "cumsum",
                                          "cumprod", "cummax", "cummin", "median"):
                continue
            tag = "_".join(str(x).replace("-", "m") for x in dims)
            case(f"r_{name}_{dn(d)}_{tag}{'_k' if keep else ''}", lambda x, fn=fn, dims=dims, keep=keep: fn(x, list(dims), keep),
                 values(d, (3, 4, 2)))


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    index = []
    for name, fn, inputs in CASES:
        try:
            with torch.no_grad():
                outs = Fn(fn)(*[x.clone() for x in inputs])
            ep = torch.export.export(Fn(fn), tuple(inputs))
        except Exception:  # noqa: BLE001  (PyTorch rejects the combination)
            continue
        torch.export.save(ep, os.path.join(outdir, name + ".pt2"))
        io = {f"input.{i}": x.contiguous() for i, x in enumerate(inputs)}
        io.update({f"output.{i}": o.contiguous() for i, o in enumerate(outs)})
        save_file(io, os.path.join(outdir, name + ".io.safetensors"))
        index.append({"name": name, "ops": sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})})
    with open(os.path.join(outdir, "INDEX.json"), "w") as f:
        json.dump({"torch": torch.__version__, "cases": index}, f, indent=1)
    print(f"{len(index)} of {len(CASES)} combinations accepted by PyTorch")


if __name__ == "__main__":
    main(sys.argv[1])
