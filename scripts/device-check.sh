#!/usr/bin/env bash
# device-check.sh — the device check of torchtpu's PJRT path, for a machine with
# an NVIDIA GPU and jax's CUDA plugin installed, or (-d tpu) a TPU VM with libtpu
# where `torchtpu devices` finds it (scripts/install-pjrt.sh tpu); it needs no
# Go and no network.
#
#   scripts/device-check.sh [-d cuda|tpu] [-b TORCHTPU] [-c CONFORMANCE_DIR] FIXTURE_DIR...
#
# It finds the PJRT plugin, lists the devices, runs a StableHLO conformance
# subset on the device through the same legalization pipeline as xla-cpu
# (backend/pjrt/legalize: CONFORMANCE_DIR/legalize holds the polymorphic,
# quantized and per-pass programs, run with --sample 3 against the native
# backend), verifies every fixture (NAME.pt2 with NAME.io.safetensors) on the
# device and on cpu, and prints per-model latency side by side with PyTorch
# eager and torch.compile on the same device (cuda). It prints pass counts and
# exits non-zero if any fixture fails on the device.
#
# Budget: about 8 minutes on one H200 for ../shared/fixtures/{ops,models}.
# The binary is built where Go is (CGO_ENABLED=1 go build -o torchtpu
# ./cmd/torchtpu) and carried with the fixtures (scripts/device-pack.sh).
set -uo pipefail

bin=./torchtpu
conf=""
dev=cuda
while getopts "b:c:d:" o; do
  case $o in
    b) bin=$OPTARG ;;
    c) conf=$OPTARG ;;
    d) dev=$OPTARG ;;
    *) sed -n 2,22p "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n 2,22p "$0"; exit 2; }
py=${PYTHON:-python3}
if [ "$dev" = tpu ]; then
  echo "== plugin: libtpu (as torchtpu devices finds it)"
  "$bin" devices || exit 1
  if [ -n "$conf" ]; then
    echo "== conformance subset on tpu ($conf)"
    "$bin" stablehlo run --device tpu "$conf"/*.mlir 2>&1 | tail -5
    [ -d "$conf/legalize" ] && "$bin" stablehlo run --device tpu --sample 3 "$conf"/legalize/*.mlir 2>&1 | tail -8
  fi
  bad=0
  for dir in "$@"; do
    for pt2 in "$dir"/*.pt2; do
      io=${pt2%.pt2}.io.safetensors
      [ -f "$io" ] || continue
      timeout 300 "$bin" verify "$pt2" --io "$io" --device tpu >/tmp/dc.out 2>&1 || { bad=$((bad + 1)); echo "  tpu FAIL $pt2: $(tail -1 /tmp/dc.out)"; }
    done
  done
  echo "== fixtures on tpu: $bad failed"
  [ "$bad" -eq 0 ]
  exit
fi
[ "$dev" = cuda ] || { echo "device-check: -d cuda or -d tpu" >&2; exit 2; }

plugin=$($py - <<'PY' 2>/dev/null
import glob, os, importlib.util
for name in ("jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12"):
    spec = importlib.util.find_spec(name)
    if spec and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            for f in glob.glob(os.path.join(d, "xla_cuda_plugin.so")):
                print(f); raise SystemExit
PY
)
if [ -z "$plugin" ]; then
  echo "device-check: no CUDA PJRT plugin found in $py's jax_plugins" >&2
  exit 1
fi
# The plugin finds CUDA's libraries through the nvidia-* wheels of the same env.
libs=$($py -c 'import glob,os,site; print(":".join(sorted({os.path.dirname(p) for s in site.getsitepackages() for p in glob.glob(s+"/nvidia/*/lib/*.so*")})))' 2>/dev/null)
export LD_LIBRARY_PATH="${libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
link=$(mktemp -d)/pjrt_c_api_cuda_plugin.so
ln -s "$plugin" "$link"
export PJRT_PLUGIN_LIBRARY_PATH=$link
echo "== plugin: $plugin"
"$bin" devices || exit 1

if [ -n "$conf" ]; then
  echo "== conformance subset on cuda ($conf)"
  "$bin" stablehlo run --device cuda "$conf"/*.mlir 2>&1 | tail -5
  if [ -d "$conf/legalize" ]; then
    echo "== legalization pipeline on cuda: polymorphic, quantized and per-pass programs (--sample 3)"
    "$bin" stablehlo run --device cuda --sample 3 "$conf"/legalize/*.mlir 2>&1 | tail -8
  fi
fi

ok_cuda=0 bad_cuda=0 ok_cpu=0 bad_cpu=0
failed=()
for dir in "$@"; do
  for pt2 in "$dir"/*.pt2; do
    io=${pt2%.pt2}.io.safetensors
    [ -f "$io" ] || continue
    if timeout 120 "$bin" verify "$pt2" --io "$io" --device cuda >/tmp/dc.out 2>&1; then
      ok_cuda=$((ok_cuda + 1))
    else
      bad_cuda=$((bad_cuda + 1)); failed+=("$pt2: $(tail -1 /tmp/dc.out)")
    fi
    if timeout 120 "$bin" verify "$pt2" --io "$io" --device cpu >/dev/null 2>&1; then
      ok_cpu=$((ok_cpu + 1))
    else
      bad_cpu=$((bad_cpu + 1))
    fi
  done
done
echo "== fixtures: cuda $ok_cuda passed, $bad_cuda failed; cpu $ok_cpu passed, $bad_cpu failed"

# The disk cache on cuda stores serialized executables
# (PJRT_Executable_Serialize) and a second process loads them
# (PJRT_Executable_DeserializeAndLoad) instead of compiling.
for dir in "$@"; do
  first=$(ls "$dir"/*.pt2 2>/dev/null | head -1)
  [ -n "$first" ] && [ -f "${first%.pt2}.io.safetensors" ] && break
done
if [ -n "${first:-}" ]; then
  cdir=$(mktemp -d)
  echo "== disk cache round trip on cuda: $(basename "$first")"
  for pass in store load; do
    if timeout 120 "$bin" verify "$first" --io "${first%.pt2}.io.safetensors" --device cuda --cache-dir "$cdir" -v >/tmp/dc.out 2>&1; then
      echo "  $pass: ok ($(grep -i -m1 'compile' /tmp/dc.out))"
    else
      bad_cuda=$((bad_cuda + 1)); echo "  $pass: FAIL $(tail -1 /tmp/dc.out)"
    fi
  done
  grep -rla 'torchtpu-serialized' "$cdir" >/dev/null 2>&1 && echo "  entries are serialized executables" || echo "  entries are module text (the plugin did not serialize)"
fi
for f in "${failed[@]}"; do echo "  cuda FAIL $f"; done

echo "== latency (median ms): torchtpu cuda | torchtpu cpu | torch eager cuda | torch.compile cuda"
here=$(cd "$(dirname "$0")" && pwd)
for dir in "$@"; do
  for pt2 in "$dir"/*.pt2; do
    case $pt2 in *models*) ;; *) continue ;; esac
    io=${pt2%.pt2}.io.safetensors
    t_cuda=$("$bin" bench "$pt2" --inputs "$io" --device cuda --json 2>/dev/null | $py -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])' 2>/dev/null || echo "-")
    t_cpu=$("$bin" bench "$pt2" --inputs "$io" --device cpu --runs 5 --json 2>/dev/null | $py -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])' 2>/dev/null || echo "-")
    t_torch=$($py "$here/device_torch_bench.py" "$pt2" "$io" 2>/dev/null || echo "- -")
    printf '%-45s %10s %10s %10s %10s\n' "$(basename "$pt2")" "$t_cuda" "$t_cpu" $t_torch
  done
done
[ "$bad_cuda" -eq 0 ]
