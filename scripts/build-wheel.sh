#!/usr/bin/env bash
# build-wheel: the torchtpu wheel, as users install it, into dist/.
#
#   scripts/build-wheel.sh [PYTHON]
#
# PYTHON is the build environment (default: the venv of scripts/setup-python.sh,
# PyPI's torch 2.15): the wheel holds libtorchtpu (go build), the tpu device's
# C++ extension compiled with g++ against that Python's torch, and the package;
# its metadata requires torch==X.Y.* of that torch (python/setup.py). The
# extension's object files are cached in ~/.cache/torchtpu/ext, so a rebuild
# with unchanged C++ sources only links.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$PATH:/usr/local/go/bin"
py=${1:-${TORCHTPU_VENV:-$HOME/.cache/torchtpu/venv-torch}/bin/python}
start=$SECONDS
rm -rf python/build dist/torchtpu-*.whl  # setuptools' build tree keeps files removed from the sources
"$py" -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps -w dist ./python
rm -rf python/build
whl=$(ls dist/torchtpu-*.whl)
echo "built $whl ($(du -h "$whl" | cut -f1), $((SECONDS - start)) s)"
