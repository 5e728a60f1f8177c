# Generates adaptive.json: inputs and PyTorch CPU adaptive_max_pool outputs
# (values and indices), with ties, several NaNs per bin and -inf.
# Run: /work/shared/tools/torch-oracle run sid -- python3 gen_adaptive.py
import json, math, torch
torch.manual_seed(1)
def enc(t):
    return [("nan" if math.isnan(v) else ("-inf" if v == -math.inf else ("inf" if v == math.inf else v))) for v in t.flatten().tolist()]
specs = [
  # n, dtype, shape, output size
  (2, torch.float32, (2, 7, 9), (3, 4)),
  (2, torch.float64, (1, 3, 8, 8), (3, 3)),
  (1, torch.float32, (2, 4, 11), (4,)),
  (3, torch.float32, (1, 2, 5, 6, 4), (2, 3, 2)),
  (2, torch.bfloat16, (2, 6, 5), (2, 2)),
]
cases = []
for i, (n, dt, shape, osize) in enumerate(specs):
    x = torch.randint(0, 3, shape).to(torch.float64)
    r = torch.rand(shape, dtype=torch.float64)
    x[r < 0.25] = math.nan
    x[(r >= 0.25) & (r < 0.35)] = -math.inf
    x = x.to(dt)
    fn = {1: torch.nn.functional.adaptive_max_pool1d, 2: torch.nn.functional.adaptive_max_pool2d,
          3: torch.nn.functional.adaptive_max_pool3d}[n]
    v, ix = fn(x, osize, return_indices=True)
    cases.append(dict(n=n, dtype=str(dt).replace("torch.", ""), shape=list(shape), osize=list(osize),
                      x=enc(x.to(torch.float64)), values=enc(v.to(torch.float64)), indices=ix.flatten().tolist()))
json.dump(dict(torch=torch.__version__, cases=cases), open("adaptive.json", "w"))
print("wrote", len(cases), "cases, torch", torch.__version__)
