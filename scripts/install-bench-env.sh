#!/usr/bin/env bash
# install-bench-env: the Python side of scripts/bench-compare.sh's peers.
#
#   scripts/install-bench-env.sh [VENV]     (default ~/.cache/torchtpu/venv-bench)
#
# Makes a venv that sees PyPI torch's venv (~/.cache/torchtpu/venv-torch,
# or $TORCHTPU_TORCH_VENV: torch, torchvision, transformers; read only,
# through a .pth file) and adds, pinned, ONNX Runtime and the exporter's
# dependencies. Idempotent: a venv that already imports them is left as is.
set -euo pipefail
venv=${1:-$HOME/.cache/torchtpu/venv-bench}
torch_venv=${TORCHTPU_TORCH_VENV:-$HOME/.cache/torchtpu/venv-torch}
pins=(onnxruntime==1.31.1 onnx==1.23.2 onnxscript==0.7.2)

tpy=$torch_venv/bin/python
"$tpy" -c 'import torch, torchvision, transformers' 2>/dev/null ||
  { echo "install-bench-env: $torch_venv does not import torch, torchvision and transformers" >&2; exit 1; }
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import torch, onnxruntime, onnxscript' 2>/dev/null; then
  exit 0
fi
"$tpy" -m venv "$venv"
site=$("$tpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
own=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$site" > "$own/torch-venv.pth"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
"$venv/bin/python" -c 'import torch, onnxruntime, onnxscript; print("bench env: torch", torch.__version__, "onnxruntime", onnxruntime.__version__, "onnxscript", onnxscript.__version__)'
