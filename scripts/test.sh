#!/usr/bin/env bash
# test: every test of the project, Go and Python.
#
#   scripts/test.sh [go|python|python-wheel|python-chroot|python-venv]   (default: go and python)
#
# go:            go test ./... (unit tests, the StableHLO conformance suite, the
#                fixtures through the whole road; needs ../shared)
# python-wheel:  python/tests under PyPI's torch 2.15 against the wheel, built and
#                installed in a clean venv and run from outside the checkout with
#                no compiler on PATH (scripts/test-wheel.sh)
# python-chroot: the same tests under Debian's torch 2.14 (torch-oracle chroot)
#                against the checkout's package (python/ on sys.path), the device
#                extension built from its sources on first use
# python:        python-wheel and python-chroot
# python-venv:   the tests against the checkout, installed editable in the venv of
#                scripts/setup-python.sh (development: no wheel to build)
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
  all|python|python-wheel)
    echo "== python tests, PyPI torch, the installed wheel"
    scripts/test-wheel.sh ;;
esac
case "$what" in
  python-venv)
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
