#!/usr/bin/env bash
# setup-python: what the Python tests need, installed once and reused.
#
#   scripts/setup-python.sh [venv|wheel|chroot|all]     (default: all)
#
# venv:   PyPI's official torch 2.15 (+ torchvision, transformers, pytest) in a
#         venv outside the checkout ($TORCHTPU_VENV, default
#         ~/.cache/torchtpu/venv-torch), with this package installed editable
#         (pip install -e python: builds libtorchtpu, registers the
#         torch_dynamo_backends entry point). ~2 minutes and ~6 GB the first time.
#         It is also the environment wheels are built in (scripts/build-wheel.sh).
# wheel:  a clean venv for the installed wheel ($TORCHTPU_WHEEL_VENV, default
#         ~/.cache/torchtpu/venv-wheel): the same pins from PyPI, no system
#         site-packages, and no torchtpu (scripts/test-wheel.sh installs the
#         wheel). Made once (~1.5 minutes, ~6 GB); each time, a torchtpu left
#         there is uninstalled and the rest must match the venv's first
#         `pip freeze`, or the venv is made again.
# chroot: Debian's torch 2.14 in ../shared/tools/torch-oracle's chroot (~6
#         minutes the first time; needs root).
# venv, chroot: libtorchtpu built into python/torchtpu/lib (scripts/build-python.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
what=${1:-all}
venv=${TORCHTPU_VENV:-$HOME/.cache/torchtpu/venv-torch}
wheel_venv=${TORCHTPU_WHEEL_VENV:-$HOME/.cache/torchtpu/venv-wheel}
oracle=${TORCHTPU_SHARED:-$root/../shared}/tools/torch-oracle
# the versions the package is built for and tested with
# (expecttest: PyTorch's op database, torch.testing._internal, imports it)
pins=(torch==2.15.0 torchvision==0.29.2 transformers==5.25.0 pytest==9.2.0 numpy==2.4.6 expecttest==0.3.0)

if [ "$what" != wheel ]; then
  scripts/build-python.sh
fi
if [ "$what" = all ] || [ "$what" = venv ]; then
  if ! "$venv/bin/python" -c 'import torch, torchvision, transformers, pytest, expecttest' 2>/dev/null; then
    echo "setup-python: installing ${pins[*]} into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
  fi
  # the package itself, editable: the library is already built; the build
  # needs this venv's torch (python/setup.py pins it), so no isolated build env
  TORCHTPU_SKIP_LIBRARY_BUILD=1 "$venv/bin/pip" install -q --disable-pip-version-check --no-deps \
    --no-build-isolation -e python
fi
if [ "$what" = all ] || [ "$what" = wheel ]; then
  clean="$wheel_venv/torchtpu-clean.txt"  # its pip freeze when it was made
  if [ -f "$clean" ] && [ "$(cat "$wheel_venv/torchtpu-pins.txt" 2>/dev/null)" != "${pins[*]}" ]; then
    echo "setup-python: the pins changed since $wheel_venv was made; making it again" >&2
    rm -f "$clean"
  fi
  if [ -f "$clean" ]; then
    if "$wheel_venv/bin/pip" show -q torchtpu 2>/dev/null; then
      "$wheel_venv/bin/pip" uninstall -q -y --disable-pip-version-check torchtpu
    fi
    if ! "$wheel_venv/bin/pip" freeze --disable-pip-version-check | cmp -s - "$clean"; then
      echo "setup-python: $wheel_venv holds other packages than when it was made; making it again" >&2
      rm -rf "$wheel_venv"
    fi
  fi
  if [ ! -f "$clean" ]; then
    echo "setup-python: installing ${pins[*]} into a clean venv $wheel_venv" >&2
    rm -rf "$wheel_venv"
    python3 -m venv "$wheel_venv"
    "$wheel_venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}"
    "$wheel_venv/bin/pip" freeze --disable-pip-version-check >"$clean"
    echo "${pins[*]}" >"$wheel_venv/torchtpu-pins.txt"
  fi
fi
if [ "$what" = all ] || [ "$what" = chroot ]; then
  "$oracle" setup sid
fi
