"""Cases for the fused attention ops (aten/nn_attention_*.go), read by
aten/nn_attention_test.go: attention.safetensors holds every tensor,
cases.json each call (op, arguments, expected outputs by name).

    cd aten/testdata/attention && /work/shared/tools/torch-oracle run sid -- python3 gen.py

The CPU flash kernel and its backward run for real: their outputs are
PyTorch's. The other devices' kernels (CUDA flash, memory-efficient,
cuDNN, the overrideable op) cannot run here; their expected outputs are
PyTorch's math attention in float64 (values, through autograd for the
gradients) cast to each output's dtype, with every output's shape and dtype
from PyTorch's meta kernels for the op.
"""
import json
import math

import torch
from safetensors.torch import save_file

A = torch.ops.aten
torch.manual_seed(0)
tensors = {}
cases = []


def put(name, t):
    tensors[name] = t.detach().contiguous().clone()
    return {"tensor": name}


def arg(case, i, v):
    if isinstance(v, torch.Tensor):
        return put(f"{case}.arg{i}", v)
    if v is None:
        return {"none": True}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        return {"float": v}
    if isinstance(v, (list, tuple)) and all(isinstance(x, bool) for x in v):
        return {"bools": list(v)}
    raise TypeError(type(v))


def record(case, op, args, kwargs, outs, tol):
    c = {"name": case, "op": "aten::" + op, "tol": tol,
         "args": [arg(case, i, v) for i, v in enumerate(args)],
         "kwargs": {k: arg(case, k, v) for k, v in kwargs.items()}, "outputs": []}
    for i, o in enumerate(outs):
        if o is None:
            c["outputs"].append({"none": True})
        elif isinstance(o, torch.Tensor):
            c["outputs"].append({"tensor": put(f"{case}.out{i}", o)["tensor"], "dtype": str(o.dtype).removeprefix("torch."),
                                 "shape": list(o.shape)})
        else:
            c["outputs"].append({"int": int(o)})
    cases.append(c)


TOL = {torch.float64: 1e-10, torch.float32: 2e-5, torch.bfloat16: 2e-2, torch.float16: 2e-3}


def qkv(B, H, L, S, E, dt, Hk=None):
    Hk = Hk or H
    return (torch.randn(B, H, L, E, dtype=torch.float64).to(dt), torch.randn(B, Hk, S, E, dtype=torch.float64).to(dt),
            torch.randn(B, Hk, S, E, dtype=torch.float64).to(dt))


def masked_rows(L, S, dt, shape=None):
    m = torch.randn(L, S, dtype=torch.float64)
    m[torch.rand(L, S) < 0.3] = float("-inf")
    m[0] = float("-inf")  # a fully masked row
    if shape is not None:
        m = m.expand(*shape[:-2], L, S).clone()
        m[..., 1, :] += torch.randn(*shape[:-2], S, dtype=torch.float64)
    return m.to(dt)


# --- the CPU flash kernel, for real --------------------------------------
def cpu_case(name, dt, B=2, H=3, L=5, S=7, E=8, Hk=None, causal=False, mask=None, scale=None):
    q, k, v = qkv(B, H, L, S, E, dt, Hk)
    kw = {}
    if mask is not None:
        kw["attn_mask"] = mask
    if scale is not None:
        kw["scale"] = scale
    out, lse = A._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, **kw)
    record(name, "_scaled_dot_product_flash_attention_for_cpu", [q, k, v, 0.0, causal], kw, [out, lse], TOL[dt])
    go = torch.randn(out.shape, dtype=torch.float64).to(dt)
    try:
        grads = A._scaled_dot_product_flash_attention_for_cpu_backward(go, q, k, v, out, lse, 0.0, causal, **kw)
    except RuntimeError as e:
        print(f"{name}: no backward: {str(e).splitlines()[0]}")
        return
    record(name + "_backward", "_scaled_dot_product_flash_attention_for_cpu_backward",
           [go, q, k, v, out, lse, 0.0, causal], kw, list(grads), TOL[dt])


cpu_case("cpu_f32", torch.float32)
cpu_case("cpu_f64", torch.float64)
cpu_case("cpu_bf16", torch.bfloat16)
cpu_case("cpu_f16", torch.float16)
cpu_case("cpu_causal_short_q", torch.float32, L=4, S=9, causal=True)
cpu_case("cpu_causal_long_q", torch.float32, L=9, S=4, causal=True)
cpu_case("cpu_mask_2d", torch.float32, mask=masked_rows(5, 7, torch.float32))
cpu_case("cpu_mask_4d", torch.float32, mask=masked_rows(5, 7, torch.float32, (2, 1, 5, 7)))
cpu_case("cpu_mask_causal_bf16", torch.bfloat16, causal=True, mask=masked_rows(5, 7, torch.bfloat16))
cpu_case("cpu_gqa", torch.float32, H=4, Hk=2)
cpu_case("cpu_scale", torch.float32, scale=0.3)
cpu_case("cpu_one_query", torch.float32, L=1, S=6, causal=True)
cpu_case("cpu_long_keys", torch.float32, B=1, H=1, L=3, S=600, E=4)
cpu_case("cpu_head_dim_odd", torch.float32, E=5, mask=masked_rows(5, 7, torch.float32))


# --- other devices' kernels: float64 math attention, meta shapes ---------
def reference(q, k, v, bias=None, causal=None, scale=None, gout=None, Hk_group=1):
    """Output, log-sum-exp and gradients (q, k, v, bias) in float64."""
    q, k, v = (x.detach().double().requires_grad_() for x in (q, k, v))
    b = None if bias is None else bias.detach().double().requires_grad_()
    kk = k.repeat_interleave(Hk_group, 1)
    vv = v.repeat_interleave(Hk_group, 1)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ kk.transpose(-1, -2) * scale
    if b is not None:
        s = s + b
    if causal is not None:
        L, S = s.shape[-2:]
        i = torch.arange(L)[:, None] + (S - L if causal == "bottom" else 0)
        s = s.masked_fill(torch.arange(S)[None, :] > i, float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.softmax(s, -1)
    out = p @ vv
    grads = None
    if gout is not None:
        grads = torch.autograd.grad(out, [q, k, v] + ([b] if b is not None else []), gout.double())
    return out.detach(), lse.detach(), grads


def meta_of(op, *args, **kw):
    m = [a.to("meta") if isinstance(a, torch.Tensor) else a for a in args]
    return getattr(A, op)(*m, **{k: (x.to("meta") if isinstance(x, torch.Tensor) else x) for k, x in kw.items()})


def like(meta, value):
    """value cast to the meta output's dtype, checked against its shape."""
    assert tuple(value.shape) == tuple(meta.shape), (value.shape, meta.shape)
    return value.to(meta.dtype)


def zeros_like_meta(meta):
    return torch.zeros(meta.shape, dtype=meta.dtype)


def pad_lse(lse, meta):
    out = torch.full(meta.shape, float("inf"), dtype=torch.float64)
    out[..., : lse.shape[-1]] = lse
    return out.to(meta.dtype)


def device_cases(dt, tag):
    B, H, L, S, E = 2, 4, 5, 7, 8
    tol = TOL[dt] if dt != torch.float32 else 1e-5
    q, k, v = qkv(B, H, L, S, E, dt)
    bias = torch.randn(B, H, L, S, dtype=torch.float64).to(dt)
    gout = torch.randn(B, H, L, E, dtype=torch.float64).to(dt)

    # memory-efficient
    for lse_on, causal, with_bias in ((True, False, True), (True, True, False), (False, False, False)):
        name = f"efficient_{tag}_lse{int(lse_on)}_causal{int(causal)}_bias{int(with_bias)}"
        b = bias if with_bias else None
        meta = meta_of("_scaled_dot_product_efficient_attention", q, k, v, b, lse_on, 0.0, causal)
        out, lse, grads = reference(q, k, v, b, "top" if causal else None, gout=gout)
        lse_out = pad_lse(lse, meta[1]) if lse_on else zeros_like_meta(meta[1])
        record(name, "_scaled_dot_product_efficient_attention", [q, k, v, b, lse_on, 0.0, causal], {},
               [like(meta[0], out), lse_out, zeros_like_meta(meta[2]), zeros_like_meta(meta[3])], tol)
        if not lse_on:
            continue
        bmeta = meta_of("_scaled_dot_product_efficient_attention_backward", gout, q, k, v, bias, out.to(dt), lse_out,
                        meta[2], meta[3], 0.0, [True, True, True, with_bias], causal)
        outs = [like(m, g) for m, g in zip(bmeta[:3], grads[:3])]
        outs.append(like(bmeta[3], grads[3]) if with_bias else None)
        record(name + "_backward", "_scaled_dot_product_efficient_attention_backward",
               [gout, q, k, v, b, out.to(dt), lse_out, zeros_like_meta(meta[2]), zeros_like_meta(meta[3]), 0.0,
                [True, True, True, with_bias], causal], {}, outs, tol)

    # CUDA flash (no bias), top-left causal
    for causal in (False, True):
        name = f"flash_{tag}_causal{int(causal)}"
        meta = meta_of("_scaled_dot_product_flash_attention", q, k, v, 0.0, causal)
        out, lse, grads = reference(q, k, v, None, "top" if causal else None, gout=gout)
        outs = [like(meta[0], out), like(meta[1], lse), None, None, meta[4], meta[5], zeros_like_meta(meta[6]),
                zeros_like_meta(meta[7]), zeros_like_meta(meta[8])]
        record(name, "_scaled_dot_product_flash_attention", [q, k, v, 0.0, causal], {}, outs, tol)
        bmeta = meta_of("_scaled_dot_product_flash_attention_backward", gout, q, k, v, out.to(dt), outs[1],
                        torch.empty(0), torch.empty(0), L, S, 0.0, causal, outs[6], outs[7])
        record(name + "_backward", "_scaled_dot_product_flash_attention_backward",
               [gout, q, k, v, out.to(dt), outs[1], None, None, L, S, 0.0, causal, outs[6], outs[7]], {},
               [like(m, g) for m, g in zip(bmeta, grads)], tol)

    # cuDNN, with a bias
    name = f"cudnn_{tag}"
    meta = meta_of("_scaled_dot_product_cudnn_attention", q, k, v, bias, True)
    out, lse, grads = reference(q, k, v, bias, None, gout=gout)
    outs = [like(meta[0], out), like(meta[1], lse[..., None]), None, None, meta[4], meta[5], zeros_like_meta(meta[6]),
            zeros_like_meta(meta[7]), None]
    record(name, "_scaled_dot_product_cudnn_attention", [q, k, v, bias, True], {}, outs, tol)
    bmeta = meta_of("_scaled_dot_product_cudnn_attention_backward", gout, q, k, v, out.to(dt), outs[1], outs[6],
                    outs[7], bias, torch.empty(0), torch.empty(0), L, S, 0.0, False)
    record(name + "_backward", "_scaled_dot_product_cudnn_attention_backward",
           [gout, q, k, v, out.to(dt), outs[1], outs[6], outs[7], bias, None, None, L, S, 0.0, False], {},
           [like(m, g) for m, g in zip(bmeta, grads[:3])], tol)

    # the overrideable op, with a bias and a scale
    name = f"overrideable_{tag}"
    meta = meta_of("_scaled_dot_product_fused_attention_overrideable", q, k, v, bias, scale=0.5)
    out, lse, grads = reference(q, k, v, bias, None, scale=0.5, gout=gout)
    outs = [like(meta[0], out), like(meta[1], lse), None, None, meta[4], meta[5], zeros_like_meta(meta[6]),
            zeros_like_meta(meta[7]), None]
    record(name, "_scaled_dot_product_fused_attention_overrideable", [q, k, v, bias], {"scale": 0.5}, outs, tol)
    bmeta = meta_of("_scaled_dot_product_fused_attention_overrideable_backward", gout, q, k, v, bias,
                    [True, True, True, True], out.to(dt), outs[1], torch.empty(0), torch.empty(0), L, S, 0.0, False,
                    outs[6], outs[7], scale=0.5)
    record(name + "_backward", "_scaled_dot_product_fused_attention_overrideable_backward",
           [gout, q, k, v, bias, [True, True, True, True], out.to(dt), outs[1], None, None, L, S, 0.0, False,
            outs[6], outs[7]], {"scale": 0.5}, [like(m, g) for m, g in zip(bmeta, grads)], tol)

    # the low-level kernels: [B, L, H, E]; flash's causal mask is bottom-right
    t = lambda x: x.transpose(1, 2).contiguous()
    Lq, Sk = 4, 6
    q2, k2, v2 = qkv(B, H, Lq, Sk, E, dt)
    g2 = torch.randn(B, H, Lq, E, dtype=torch.float64).to(dt)
    name = f"flash_forward_{tag}_causal"
    meta = meta_of("_flash_attention_forward", t(q2), t(k2), t(v2), None, None, Lq, Sk, 0.0, True, False)
    out, lse, grads = reference(q2, k2, v2, None, "bottom", gout=g2)
    outs = [like(meta[0], t(out)), like(meta[1], lse), zeros_like_meta(meta[2]), zeros_like_meta(meta[3]),
            zeros_like_meta(meta[4])]
    record(name, "_flash_attention_forward", [t(q2), t(k2), t(v2), None, None, Lq, Sk, 0.0, True, False], {}, outs, tol)
    bmeta = meta_of("_flash_attention_backward", t(g2), t(q2), t(k2), t(v2), outs[0], outs[1], torch.empty(0),
                    torch.empty(0), Lq, Sk, 0.0, True, outs[2], outs[3])
    record(name + "_backward", "_flash_attention_backward",
           [t(g2), t(q2), t(k2), t(v2), outs[0], outs[1], torch.empty(0), torch.empty(0), Lq, Sk, 0.0, True, outs[2],
            outs[3]], {}, [like(m, t(g)) for m, g in zip(bmeta, grads)], tol)
    b2 = torch.randn(B, H, Lq, Sk, dtype=torch.float64).to(dt)
    for mt, causal in ((0, None), (1, "top"), (2, "bottom")):
        name = f"efficient_forward_{tag}_mask{mt}"
        meta = meta_of("_efficient_attention_forward", t(q2), t(k2), t(v2), b2, None, None, None, None, 0.0, mt, True)
        out, lse, grads = reference(q2, k2, v2, b2, causal, gout=g2)
        outs = [like(meta[0], t(out)), pad_lse(lse, meta[1]), zeros_like_meta(meta[2]), zeros_like_meta(meta[3]),
                meta[4], meta[5]]
        record(name, "_efficient_attention_forward", [t(q2), t(k2), t(v2), b2, None, None, None, None, 0.0, mt, True],
               {}, outs, tol)
        bmeta = meta_of("_efficient_attention_backward", t(g2), t(q2), t(k2), t(v2), b2, outs[0], None, None, Lq, Sk,
                        outs[1], 0.0, outs[2], outs[3], mt, True)
        record(name + "_backward", "_efficient_attention_backward",
               [t(g2), t(q2), t(k2), t(v2), b2, outs[0], None, None, Lq, Sk, outs[1], 0.0, outs[2], outs[3], mt, True],
               {}, [like(m, t(g)) for m, g in zip(bmeta[:3], grads[:3])] + [like(bmeta[3], grads[3])], tol)


device_cases(torch.float32, "f32")
device_cases(torch.bfloat16, "bf16")
device_cases(torch.float16, "f16")

save_file(tensors, "attention.safetensors")
with open("cases.json", "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
print(f"{len(cases)} cases, {len(tensors)} tensors, torch {torch.__version__}")
