# Cases for backward ops that training graphs hold and no decomposition
# reaches (pooling with indices, embedding bags): each NAME.pt2
# (torch.export.save of a module calling the op) with NAME.io.safetensors
# holding the inputs and PyTorch's eager outputs. The saved inputs of each
# backward (indices, offset2bag, bag_size, ...) come from PyTorch's own
# forward. Run with real PyTorch:
#   cd aten/testdata/backward && /work/shared/tools/torch-oracle run sid -- python3 gen.py .
import os
import sys

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

A = torch.ops.aten
out = sys.argv[1] if len(sys.argv) > 1 else "."
torch.manual_seed(0)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def case(name, fn, *xs):
    try:
        ep = torch.export.export(Fn(fn), tuple(xs))
        torch.export.save(ep, os.path.join(out, name + ".pt2"))
        o = fn(*xs)
        if not isinstance(o, (tuple, list)):
            o = (o,)
        t = {f"input.{i}": x.contiguous() for i, x in enumerate(xs)}
        t.update({f"output.{i}": y.contiguous() for i, y in enumerate(o)})
        save_file(t, os.path.join(out, name + ".io.safetensors"))
    except Exception as e:  # report and go on: one bad case must not stop the rest
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


# max pooling with indices: the forward's indices, a random output gradient
for name, fwd, bwd, x in (
    ("adaptive_max_pool2d_backward", lambda x: F.adaptive_max_pool2d(x, (3, 2), return_indices=True),
     lambda g, x, i: A.adaptive_max_pool2d_backward(g, x, i), r(2, 3, 7, 5)),
    ("adaptive_max_pool2d_backward_unbatched", lambda x: F.adaptive_max_pool2d(x, 4, return_indices=True),
     lambda g, x, i: A.adaptive_max_pool2d_backward(g, x, i), r(3, 9, 6)),
    ("adaptive_max_pool3d_backward", lambda x: F.adaptive_max_pool3d(x, (2, 3, 2), return_indices=True),
     lambda g, x, i: A.adaptive_max_pool3d_backward(g, x, i), r(1, 2, 5, 6, 4)),
    ("adaptive_max_pool2d_backward_bf16", lambda x: F.adaptive_max_pool2d(x, 3, return_indices=True),
     lambda g, x, i: A.adaptive_max_pool2d_backward(g, x, i), r(1, 2, 8, 8, dtype=torch.bfloat16)),
    ("max_pool3d_with_indices_backward", lambda x: F.max_pool3d(x, 2, stride=1, padding=1, return_indices=True),
     lambda g, x, i: A.max_pool3d_with_indices_backward(g, x, [2, 2, 2], [1, 1, 1], [1, 1, 1], [1, 1, 1], False, i),
     r(1, 2, 4, 4, 3)),
    ("max_pool3d_with_indices_backward_ceil", lambda x: F.max_pool3d(x, 3, stride=2, ceil_mode=True, return_indices=True),
     lambda g, x, i: A.max_pool3d_with_indices_backward(g, x, [3, 3, 3], [2, 2, 2], [0, 0, 0], [1, 1, 1], True, i),
     r(2, 1, 6, 5, 6)),
):
    y, idx = fwd(x)
    case(name, bwd, r(*y.shape, dtype=x.dtype), x, idx)

# embedding bags: offset2bag, bag_size and max_indices from PyTorch's forward
# with a weight that requires grad (the path training takes)
V, D = 9, 4
w = r(V, D)
idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0, 8, 8])
offsets = torch.tensor([0, 2, 2, 7])  # an empty bag
for mode, mname in ((0, "sum"), (1, "mean"), (2, "max")):
    for pad, last, freq, psw in ((-1, False, False, None), (4, False, False, None), (-1, True, False, None),
                                 (-1, False, True, None), (2, False, False, "psw")):
        if psw and mode != 0:
            continue
        offs = offsets if not last else torch.cat([offsets, torch.tensor([10])])
        pw = r(len(idx)) if psw else None
        wg = w.clone().requires_grad_()
        fw = A._embedding_bag(wg, idx, offs, freq, mode, False, pw, last, pad)
        _, o2b, bag_size, max_idx = (t.detach() for t in fw)
        g = r(*fw[0].shape)
        name = f"embedding_bag_backward_{mname}_pad{pad}_last{int(last)}_freq{int(freq)}" + ("_psw" if psw else "")
        if pw is None:
            case(name, lambda g, i, o, ob, bs, mi: A._embedding_bag_backward(g, i, o, ob, bs, mi, V, freq, mode, False, None, pad),
                 g, idx, offs, o2b, bag_size, max_idx)
        else:
            case(name, lambda g, i, o, ob, bs, mi, p: A._embedding_bag_backward(g, i, o, ob, bs, mi, V, freq, mode, False, p, pad),
                 g, idx, offs, o2b, bag_size, max_idx, pw)
            case(name + "_weights", lambda g, w, i, o, ob: A._embedding_bag_per_sample_weights_backward(g, w, i, o, ob, mode, pad),
                 g, w, idx, offs, o2b)
        if mode == 1 and pad == -1 and not last and not freq:
            case("embedding_bag_dense_backward_mean",
                 lambda g, i, ob, bs, mi: A._embedding_bag_dense_backward(g, i, ob, bs, mi, V, False, 1, None, -1),
                 g, idx, o2b, bag_size, max_idx)
