#!/usr/bin/env bash
# test: every test of the project, Go and Python.
#
#   scripts/test.sh [go|python|python-venv|python-chroot]   (default: all of them)
#
# go:            go test ./... (unit tests, the StableHLO conformance suite, the
#                fixtures through the whole road; needs ../shared)
# python-venv:   python/tests under PyPI's torch 2.15 (scripts/setup-python.sh venv)
# python-chroot: the same tests under Debian's torch 2.14 (torch-oracle chroot)
# Missing Python environments are set up first (scripts/setup-python.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$PATH:/usr/local/go/bin"
what=${1:-all}
venv=${TORCHTPU_VENV:-$HOME/.cache/torchtpu/venv-torch}
oracle=${TORCHTPU_SHARED:-$root/../shared}/tools/torch-oracle
pytest_args=(-q -p no:cacheprovider -p no:logging python/tests)

case "$what" in
  all|go)
    echo "== go test ./..."
    go test -timeout 75m ./... ;;
esac
case "$what" in
  all|python|python-venv)
    scripts/setup-python.sh venv
    echo "== python tests, PyPI torch ($venv)"
    "$venv/bin/python" -m pytest "${pytest_args[@]}" ;;
esac
case "$what" in
  all|python|python-chroot)
    scripts/setup-python.sh chroot
    echo "== python tests, Debian torch (torch-oracle chroot)"
    "$oracle" run sid -- env CI="${CI:-}" TORCHTPU_TEST_ENV=chroot python3 -m pytest "${pytest_args[@]}" ;;
esac
