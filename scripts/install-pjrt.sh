#!/usr/bin/env bash
# install-pjrt.sh — install a pinned PJRT plugin from PyPI where torchtpu finds it.
#
#   scripts/install-pjrt.sh NAME...      NAME: xla-cpu, tpu or cuda
#
# Each plugin goes to $TORCHTPU_PJRT_DIR/NAME (default ~/.cache/torchtpu/pjrt/NAME),
# a folder backend/pjrt's discovery searches (see `torchtpu devices`), as
# pjrt_c_api_<kind>_plugin.so (libtpu.so for tpu) beside a VERSION file naming the
# wheel. The wheel is fetched with pip (no dependencies, nothing installed into
# Python), checked against its pinned SHA-256 and unpacked; a folder whose VERSION
# matches is left alone, so a second call returns at once.
#
#   xla-cpu  xla-cpu-pjrt 0.0.1 (XLA's CPU compiler, the one JAX uses on CPU);
#            if it cannot be had: lammps-jax-pjrt-cpu 0.11.2 (built from jaxlib 0.11.2)
#   tpu      libtpu 0.0.51 (needs TPU chips to run anything; without them
#            `torchtpu devices` says the plugin is there and there are no chips)
#   cuda     xla-cuda13-pjrt 0.0.1 (needs an NVIDIA GPU and CUDA 13's libraries)
set -euo pipefail

root=${TORCHTPU_PJRT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/torchtpu/pjrt}
py=${PYTHON:-python3}

usage() { sed -n 2,18p "$0" >&2; exit 2; }
[ $# -gt 0 ] || usage

# spec NAME -> lines "package version sha256 member target pip-args", first choice first.
spec() {
  case $1 in
    xla-cpu)
      echo "xla-cpu-pjrt 0.0.1 55837b6b7b47daa717f2d9a5a03563ea0ceaa338d06a81a1e2d3f060d960decc xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so pjrt_c_api_cpu_plugin.so"
      echo "lammps-jax-pjrt-cpu 0.11.2 1319390d948b39f69f7dade496b7c385149d9ca6097a6b62114da113216d9ad1 lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so pjrt_c_api_cpu_plugin.so" ;;
    tpu)
      echo "libtpu 0.0.51 ba67ddbfdbac61c8da1fafc26cd51b93e9fe4d298016e2882eb986b1718cba34 libtpu/libtpu.so libtpu.so --python-version=3.11 --platform=manylinux_2_31_x86_64 --only-binary=:all:" ;;
    cuda)
      echo "xla-cuda13-pjrt 0.0.1 7ee65fdefde56f577f146681b586d4b811b299ee63504934062556190adc86d4 xla_plugins/xla_cuda13_pjrt/xla_gpu_pjrt.so pjrt_c_api_cuda_plugin.so" ;;
    *) echo "install-pjrt: unknown plugin $1 (want xla-cpu, tpu or cuda)" >&2; return 1 ;;
  esac
}

install_one() {
  local name=$1 dest=$root/$1 line pkg ver sha member target extra tmp whl got
  spec "$name" >/dev/null || exit 2
  while read -r pkg ver sha member target extra; do
    if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$pkg==$ver sha256:$sha" ] && [ -f "$dest/$target" ]; then
      echo "install-pjrt: $name: $pkg $ver already in $dest"
      return 0
    fi
  done < <(spec "$name")
  while read -r pkg ver sha member target extra; do
    tmp=$(mktemp -d)
    # shellcheck disable=SC2086  # extra holds pip flags
    if ! "$py" -m pip download --quiet --no-deps --disable-pip-version-check $extra -d "$tmp" "$pkg==$ver" >&2; then
      echo "install-pjrt: $name: pip could not fetch $pkg==$ver" >&2
      rm -rf "$tmp"; continue
    fi
    whl=$(ls "$tmp"/*.whl 2>/dev/null | head -1)
    got=$(sha256sum "$whl" | cut -d' ' -f1)
    if [ "$got" != "$sha" ]; then
      echo "install-pjrt: $name: $(basename "$whl") has SHA-256 $got, pinned $sha: refusing it" >&2
      rm -rf "$tmp"; continue
    fi
    mkdir -p "$dest"
    "$py" - "$whl" "$member" "$dest/$target.part" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
    # Only one plugin of a kind in the folder: discovery takes the first.
    find "$dest" -maxdepth 1 -name '*.so' ! -name "$target.part" -delete
    mv "$dest/$target.part" "$dest/$target"
    echo "$pkg==$ver sha256:$sha" >"$dest/VERSION"
    rm -rf "$tmp"
    echo "install-pjrt: $name: $pkg $ver installed in $dest"
    return 0
  done < <(spec "$name")
  echo "install-pjrt: $name: no pinned wheel could be installed" >&2
  return 1
}

for n in "$@"; do
  install_one "$n"
done
