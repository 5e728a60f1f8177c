#!/usr/bin/env bash
# test-wheel: the Python suite against the wheel, installed as a user installs it.
#
#   scripts/test-wheel.sh [PYTEST_ARGS...]     (default: python/tests, all of it)
#
# Builds dist/torchtpu-*.whl (scripts/build-wheel.sh, against PyPI's torch 2.15),
# installs it with pip into the clean venv of `scripts/setup-python.sh wheel`
# (PyPI's torch 2.15 and the test dependencies, nothing else; --no-index: the
# wheel's torch==2.15.* must be met by the torch there), then, from a folder
# outside the checkout and with a PATH that has no C/C++ compiler and no Go:
# `python -m torchtpu`, torch.compile with no import, training on the tpu
# device, and python/tests (copied there, with tools/opinfo_device and tools/decomp_audit that
# test imports) under TORCHTPU_TEST_ENV=wheel, which makes them import torchtpu
# from site-packages and nowhere else.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
venv=${TORCHTPU_WHEEL_VENV:-$HOME/.cache/torchtpu/venv-wheel}

build_venv=${TORCHTPU_VENV:-$HOME/.cache/torchtpu/venv-torch}
if ! "$build_venv/bin/python" -c 'import torch, setuptools' 2>/dev/null; then
  scripts/setup-python.sh venv  # the build environment: PyPI's torch 2.15
fi
scripts/setup-python.sh wheel   # the user's: a clean venv
scripts/build-wheel.sh
"$venv/bin/pip" install -q --disable-pip-version-check --no-index dist/torchtpu-*.whl

work=$(mktemp -d /tmp/torchtpu-wheel-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
# A PATH without compilers: links to the system's tools, less gcc, g++, cc,
# c++, cpp, clang and go in every spelling (x86_64-linux-gnu-g++-12, ...).
mkdir "$work/bin"
deny='(^|-)(gcc|g\+\+|c\+\+|cc|cpp|c89|c99|clang|clang\+\+|go|gofmt)(-[0-9.]+)?$'
for dir in /usr/bin /usr/sbin /bin /sbin; do
  [ -d "$dir" ] && [ ! -L "$dir" ] || continue
  find "$dir" -maxdepth 1 -executable \( -type f -o -type l \) -printf '%f\n' | grep -Ev "$deny" |
    sed "s|^|$dir/|" | xargs ln -sf -t "$work/bin"
done
path="$venv/bin:$work/bin"
for tool in gcc g++ cc c++ go; do
  if PATH=$path command -v "$tool" >/dev/null; then echo "test-wheel: $tool is on the test PATH" >&2; exit 1; fi
done
mkdir -p "$work/python" "$work/tools"
cp -r python/tests "$work/python/"
cp -r tools/opinfo_device tools/decomp_audit "$work/tools/"
find "$work" -name __pycache__ -prune -exec rm -rf {} +
cd "$work"
run() { env -u CXX -u CC PATH="$path" CI="${CI:-}" TORCHTPU_TEST_ENV=wheel "$@"; }

echo "== python -m torchtpu (installed wheel, no compiler on PATH)"
run python -m torchtpu
echo "== torch.compile with no import; training on the tpu device"
run python - <<'PY'
import copy
import sys

import torch

m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
x = torch.randn(4, 8)
y = torch.compile(m, backend="torchtpu")(x)  # found through the torch_dynamo_backends entry point
assert "torchtpu" in sys.modules
torch.testing.assert_close(y, m(x))
print("torch.compile(model, backend=\"torchtpu\") with no import: matches eager")

import torchtpu  # noqa: E402

losses = {}
for dev in ("cpu", "tpu"):
    model = copy.deepcopy(m).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(1)
    losses[dev] = []
    for _ in range(5):
        xb, yb = torch.randn(16, 8, generator=g).to(dev), torch.randint(0, 2, (16,), generator=g).to(dev)
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses[dev].append(loss.item())
torch.testing.assert_close(losses["tpu"], losses["cpu"], rtol=1e-4, atol=1e-5)
print(f"training on tpu ({torchtpu.device._ext.origin} extension): 5 SGD steps, losses match CPU:",
      " ".join(f"{v:.4f}" for v in losses["tpu"]))
PY
echo "== python tests against the installed wheel ($work)"
if [ $# -eq 0 ]; then set -- python/tests; fi
run python -m pytest -q -p no:cacheprovider -p no:logging "$@"
