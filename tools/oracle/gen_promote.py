"""Writes PyTorch's promotion results for dtype/promote_test.go.

    /work/shared/tools/torch-oracle run sid -- python3 gen_promote.py promote.json

promote_types: every pair of the promotable dtypes plus the barebones
unsigned ones (an "error" entry where PyTorch raises). result_type: every
pair and a sample of triples of operands drawn from dimensioned tensors,
0-dim tensors and Python scalars (bool, int, float, complex).
"""
import itertools
import json
import sys

import torch

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128,
          torch.uint16, torch.uint32, torch.uint64]
MAIN = DTYPES[:12]
SCALARS = {"bool": True, "int": 3, "float": 2.5, "complex": 1j}


def name(d):
    return str(d).replace("torch.", "")


def operand(kind, d):
    if kind == "dim":
        return torch.zeros(2, dtype=d)
    if kind == "zero":
        return torch.zeros((), dtype=d)
    return SCALARS[d]



def main(out):
    promote = []
    for a, b in itertools.product(DTYPES, DTYPES):
        try:
            r = name(torch.promote_types(a, b))
        except Exception:  # noqa: BLE001
            r = "error"
        promote.append([name(a), name(b), r])
    operands = [("dim", name(d)) for d in MAIN] + [("zero", name(d)) for d in MAIN] + \
        [("scalar", k) for k in SCALARS]
    results = []
    for x, y in itertools.product(operands, operands):
        if x[0] == "scalar" and y[0] == "scalar":
            continue
        ops = [operand(x[0], getattr(torch, x[1]) if x[0] != "scalar" else x[1]),
               operand(y[0], getattr(torch, y[1]) if y[0] != "scalar" else y[1])]
        try:
            r = name(torch.result_type(*ops))
        except Exception:  # noqa: BLE001
            r = "error"
        results.append([[x, y], r])
    # Triples through an elementwise op that promotes all three (addcmul).
    for x, y, z in itertools.islice(itertools.product(operands[::3], operands[1::3], operands[2::3]), 0, None):
        if x[0] == "scalar" or y[0] == "scalar" or z[0] == "scalar":
            continue
        ops = [operand(o[0], getattr(torch, o[1])) for o in (x, y, z)]
        try:
            r = name(torch.addcmul(*ops).dtype)
        except Exception:  # noqa: BLE001
            r = "error"
        results.append([[x, y, z], r])
    with open(out, "w") as f:
        json.dump({"torch": torch.__version__, "promote_types": promote, "result_type": results}, f, indent=0)


if __name__ == "__main__":
    main(sys.argv[1])
