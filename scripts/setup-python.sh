#!/usr/bin/env bash
# setup-python: what the Python tests need, installed once and reused.
#
#   scripts/setup-python.sh [venv|chroot|all]     (default: all)
#
# venv:   PyPI's official torch 2.15 (+ torchvision, transformers, pytest) in a
#         venv outside the checkout ($TORCHTPU_VENV, default
#         ~/.cache/torchtpu/venv-torch), with this package installed editable
#         (pip install -e python: builds libtorchtpu, registers the
#         torch_dynamo_backends entry point). ~2 minutes and ~6 GB the first time.
# chroot: Debian's torch 2.14 in ../shared/tools/torch-oracle's chroot (~6
#         minutes the first time; needs root).
# Both:   libtorchtpu built into python/torchtpu/lib (scripts/build-python.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
what=${1:-all}
venv=${TORCHTPU_VENV:-$HOME/.cache/torchtpu/venv-torch}
oracle=${TORCHTPU_SHARED:-$root/../shared}/tools/torch-oracle
# the versions the package is built for and tested with
pins=(torch==2.15.0 torchvision==0.29.2 transformers==5.25.0 pytest==9.2.0 numpy==2.4.6)

scripts/build-python.sh
if [ "$what" = all ] || [ "$what" = venv ]; then
  if ! "$venv/bin/python" -c 'import torch, torchvision, transformers, pytest' 2>/dev/null; then
    echo "setup-python: installing ${pins[*]} into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
  fi
  # the package itself, editable: the library is already built
  TORCHTPU_SKIP_LIBRARY_BUILD=1 "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -e python
fi
if [ "$what" = all ] || [ "$what" = chroot ]; then
  "$oracle" setup sid
fi
