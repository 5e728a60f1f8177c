# Generates maxpool.json: inputs and PyTorch CPU max_pool outputs (values
# and indices). Run: /work/shared/tools/torch-oracle run sid -- python3 gen.py
import json, math, torch
torch.manual_seed(0)
cases = []
def enc(t):
    return [("nan" if math.isnan(v) else ("-inf" if v == -math.inf else ("inf" if v == math.inf else v))) for v in t.flatten().tolist()]
specs = [
  # n, dtype, shape, k, s, p, d, ceil
  (2, torch.float32, (2, 6, 7), (3, 3), (2, 2), (1, 1), (1, 1), False),
  (2, torch.float64, (1, 2, 8, 9), (3, 2), (2, 1), (1, 0), (2, 1), True),
  (2, torch.float32, (2, 5, 5), (2, 2), (2, 2), (0, 0), (1, 1), True),
  (2, torch.bfloat16, (2, 6, 6), (3, 3), (1, 1), (1, 1), (1, 1), False),
  (2, torch.float32, (2, 11, 12), (9, 9), (2, 3), (4, 3), (1, 1), False),
  (3, torch.float64, (2, 4, 5, 6), (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 2), True),
  (3, torch.float32, (1, 2, 5, 5, 5), (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 1, 1), False),
  (1, torch.float32, (2, 3, 10), (3,), (2,), (1,), (2,), True),
  (2, torch.int64, (2, 7, 6), (3, 3), (2, 1), (1, 1), (1, 2), False),
]
for i, (n, dt, shape, k, s, p, d, ceil) in enumerate(specs):
    if dt.is_floating_point:
        x = torch.randint(0, 3, shape).to(torch.float64)
        r = torch.rand(shape, dtype=torch.float64)
        x[r < 0.2] = math.nan
        x[(r >= 0.2) & (r < 0.3)] = -math.inf
        if i == 2:
            x[:] = -math.inf
        x = x.to(dt)
    else:
        x = torch.randint(-2, 2, shape)
    fn = {1: torch.nn.functional.max_pool1d, 2: torch.nn.functional.max_pool2d, 3: torch.nn.functional.max_pool3d}[n]
    try:
        v, ix = fn(x, k, s, p, d, ceil_mode=ceil, return_indices=True)
    except Exception as e:
        print("skip", i, dt, e)
        continue
    cases.append(dict(n=n, dtype=str(dt).replace("torch.", ""), shape=list(shape), k=list(k), s=list(s), p=list(p), d=list(d), ceil=ceil,
                      x=enc(x.to(torch.float64)), values=enc(v.to(torch.float64)), indices=ix.flatten().tolist(), out_shape=list(v.shape)))
json.dump(dict(torch=torch.__version__, cases=cases), open("maxpool.json", "w"))
print("wrote", len(cases), "cases, torch", torch.__version__)
