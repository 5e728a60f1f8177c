"""Export the benchmark models for scripts/bench-compare.sh (PyPI torch).

  python export_models.py OUT_DIR NAME [NAME...]

NAME is a model of bench_models.py, or PATH.pt2 (a fixture, with
PATH.io.safetensors beside it) to be given an ONNX twin, or PATH.pt2@B:
that fixture exported again at batch B (export_batch.py), named NAME_bB.
For each it writes into OUT_DIR:

  NAME.pt2              torch.export.save of the model
  NAME.io.safetensors   the inputs and PyTorch's outputs (input.0, output.0, ...)
  NAME.onnx             torch.onnx.export of the same exported program
                        (the torch.export-based exporter, onnxscript)

and prints one JSON line per model. Files already present are kept.
"""

import json
import os
import shutil
import sys
import time

import torch
from safetensors.torch import load_file, save_file

import bench_models


def flat_outputs(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flat_outputs(o)]
    raise TypeError(f"unexpected output {type(out)}")


def export_model(out_dir, name):
    pt2 = os.path.join(out_dir, name + ".pt2")
    io = os.path.join(out_dir, name + ".io.safetensors")
    if not (os.path.exists(pt2) and os.path.exists(io)):
        m, inputs = bench_models.build(name)
        with torch.no_grad():
            outs = flat_outputs(m(*inputs))
            ep = torch.export.export(m, inputs)
        torch.export.save(ep, pt2[:-4] + ".tmp.pt2")
        save_io(io, inputs, outs)
        os.replace(pt2[:-4] + ".tmp.pt2", pt2)
    return pt2, io


def save_io(io, inputs, outs):
    tensors = {f"input.{i}": t.contiguous() for i, t in enumerate(inputs)}
    tensors.update({f"output.{i}": t.contiguous() for i, t in enumerate(outs)})
    save_file(tensors, io + ".tmp")
    os.replace(io + ".tmp", io)


def fixture(out_dir, spec):
    path, _, batch = spec.partition("@")
    name = os.path.basename(path).removesuffix(".pt2")
    if batch:
        import export_batch

        name = f"{name}_b{batch}"
        pt2 = os.path.join(out_dir, name + ".pt2")
        io = os.path.join(out_dir, name + ".io.safetensors")
        if not (os.path.exists(pt2) and os.path.exists(io)):
            ep, xb = export_batch.rebatch(path, path.removesuffix(".pt2") + ".io.safetensors", int(batch))
            with torch.inference_mode():
                outs = flat_outputs(ep.module()(xb))
            torch.export.save(ep, pt2[:-4] + ".tmp.pt2")
            save_io(io, [xb], outs)
            os.replace(pt2[:-4] + ".tmp.pt2", pt2)
        return name, pt2, io
    pt2 = os.path.join(out_dir, name + ".pt2")
    io = os.path.join(out_dir, name + ".io.safetensors")
    for src, dst in ((path, pt2), (path.removesuffix(".pt2") + ".io.safetensors", io)):
        if not os.path.exists(dst):
            shutil.copyfile(src, dst)
    return name, pt2, io


def export_onnx(pt2, io, onnx_path):
    if os.path.exists(onnx_path):
        return
    ep = torch.export.load(pt2)
    t = load_file(io)
    inputs = tuple(t[f"input.{i}"] for i in range(sum(k.startswith("input.") for k in t)))
    prog = torch.onnx.export(ep, inputs, dynamo=True, optimize=True, verbose=False)
    prog.save(onnx_path + ".tmp", external_data=False)
    os.replace(onnx_path + ".tmp", onnx_path)


def main():
    out_dir, names = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    for spec in names:
        t0 = time.time()
        if spec.partition("@")[0].endswith(".pt2"):
            name, pt2, io = fixture(out_dir, spec)
        else:
            name = spec
            pt2, io = export_model(out_dir, name)
        export_onnx(pt2, io, os.path.join(out_dir, name + ".onnx"))
        print(json.dumps({"kind": "export", "name": name, "seconds": round(time.time() - t0, 1)}), flush=True)


if __name__ == "__main__":
    main()
