"""Held-out programs for torchtpu: vision, language and recurrent models and
single ops at other shapes, dtypes and values than ../shared/fixtures, each
exported with torch.export.export and saved with torch.export.save (the
default export, as users do; names ending in _core_aten also went through
run_decompositions()), with the eager module's outputs on the CPU.

    cd tools/heldout && /work/shared/tools/torch-oracle run sid -- python3 gen.py cases small
    rm -rf ../../aten/testdata/heldout && mv cases ../../aten/testdata/heldout

"small" writes the committed set (random small weights, small inputs, a few
MB); "legacy", run under torch 2.6 (`torch-oracle run trixie`), the same
set less the transformers models, in the legacy archive layout; "full" writes full-size torchvision models and larger configs for a
one-off check (scripts in run_full.sh), not committed. Each case NAME gives
NAME.pt2 and NAME.io.safetensors (input.N, output.N) plus OUTDIR/INDEX.json.
A third argument NAME1,NAME2,... writes only those cases and adds them to
an existing OUTDIR/INDEX.json.
"""
import json
import os
import sys

import torch
from safetensors.torch import save_file
from torch.utils import _pytree as pytree

import cases_misc
import cases_ops
import cases_recurrent
import cases_vision
import cases_zoo


LEGACY_VISION = ("squeezenet_mini", "vit_tiny_b2", "shufflenet_v2_b2", "alexnet_style_b2", "swin_tiny",
                 "densenet_small", "mobilenet_v3_small", "unet_style")


class Case:
    def __init__(self, name, module, inputs, decomp=False, dynamic=None, run_inputs=None):
        self.name = name
        self.module = module
        self.inputs = tuple(inputs)
        self.decomp = decomp
        self.dynamic = dynamic
        self.run_inputs = run_inputs


def flat_outputs(out):
    leaves, _ = pytree.tree_flatten(out)
    return [x for x in leaves if isinstance(x, torch.Tensor)]


def check_export(ep, inputs, want):
    """PyTorch's own run of the exported program must agree with eager
    (torch 2.6's decomposed LSTM returns h_n as [L*D, 1, B, H], for one):
    a case whose program differs from the module is not a test of torchtpu."""
    got = flat_outputs(ep.module()(*inputs))
    if len(got) != len(want):
        raise ValueError(f"exported program returns {len(got)} tensors, eager {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            raise ValueError(f"exported program output {i} is {g.dtype}{list(g.shape)}, eager {w.dtype}{list(w.shape)}")
        tol = 2e-2 if w.dtype in (torch.bfloat16, torch.float16) else 1e-3
        if not torch.allclose(g.double(), w.double(), rtol=tol, atol=tol / 10, equal_nan=True):
            raise ValueError(f"exported program output {i} differs from eager")


def write_case(outdir, c):
    mod = c.module.eval() if isinstance(c.module, torch.nn.Module) else c.module
    with torch.no_grad():
        ep = torch.export.export(mod, c.inputs, dynamic_shapes=c.dynamic)
        if c.decomp:
            ep = ep.run_decompositions()
        torch.export.save(ep, os.path.join(outdir, c.name + ".pt2"))
        run_in = c.run_inputs if c.run_inputs is not None else c.inputs
        outs = flat_outputs(mod(*run_in))
        check_export(ep, run_in, outs)
    io = {}
    for i, x in enumerate(pytree.tree_flatten(run_in)[0]):
        io[f"input.{i}"] = x.detach().contiguous().clone()
    for i, x in enumerate(outs):
        io[f"output.{i}"] = x.detach().contiguous().clone()
    save_file(io, os.path.join(outdir, c.name + ".io.safetensors"))
    for i, x in enumerate(outs):
        if x.is_floating_point() and x.numel() > 1 and x.float().std() == 0:
            print(f"warning: {c.name} output {i} is constant: the case checks little", file=sys.stderr)
    ops = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
    return {"name": c.name, "ops": ops}


def main(outdir, which):
    torch.manual_seed(0)
    os.makedirs(outdir, exist_ok=True)
    full = which == "full"
    vision = cases_vision.cases(Case, full)
    if which == "legacy":  # a few vision models keep the legacy set small
        vision = [c for c in vision if c.name.startswith(LEGACY_VISION)]
    groups = [vision, cases_recurrent.cases(Case, full)]
    if which != "legacy":  # torch 2.6's chroot (trixie) has no transformers
        import cases_language
        groups.insert(1, cases_language.cases(Case, full))
    if not full:
        groups.append(cases_ops.cases(Case))
        groups.append(cases_misc.cases(Case))
        groups.append(cases_zoo.cases(Case))
    only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None
    index = []
    for group in groups:
        for c in group:
            if only and c.name not in only:
                continue
            try:
                index.append(write_case(outdir, c))
            except Exception as e:  # a case PyTorch cannot export is reported, not fatal
                print(f"skip {c.name}: {type(e).__name__}: {str(e)[:300]}", file=sys.stderr)
                continue
            size = sum(os.path.getsize(os.path.join(outdir, c.name + s)) for s in (".pt2", ".io.safetensors"))
            print(f"{c.name}: {size / 1e3:.0f} kB", file=sys.stderr)
    path = os.path.join(outdir, "INDEX.json")
    if only and os.path.exists(path):  # adding cases: keep the others listed
        with open(path) as f:
            old = json.load(f)["cases"]
        names = {c["name"] for c in index}
        index = [c for c in old if c["name"] not in names] + index
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "cases": index}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "small")
