#!/usr/bin/env bash
# bench-compare: torchtpu against PyTorch eager, inductor, ONNX Runtime and
# XLA:CPU on the same programs, in the same run.
#
#   scripts/bench-compare.sh [--threads N] [--runs N] [--rounds N]
#       [--gemm 512,1024,2048,4096] [--sides LIST] [--models-dir DIR]
#       [--require-quiet] [MODEL...]
#
# MODEL is a fixture name (../shared/fixtures/models/MODEL.pt2), MODEL@B (that
# fixture exported again at batch B), or a model of tools/bench/bench_models.py
# (torchvision and transformers architectures with random weights, and the
# MobileNetV2-style model). Default: every one of them, as listed below.
# Models are exported once with PyPI torch (~/.cache/torchtpu/venv-torch;
# ONNX Runtime and onnxscript come from scripts/install-bench-env.sh) into
# DIR (default ~/.cache/torchtpu/bench-models/<hash of the export scripts>):
# NAME.pt2, NAME.io.safetensors (inputs, PyTorch's outputs) and NAME.onnx;
# each is checked with `torchtpu verify --rtol 1e-4 --atol 1e-4` before it is
# timed (deep random-weight models, ResNet-50 first, differ from PyTorch by
# a few 1e-5 through summation order; the peers' own max_abs_err against
# PyTorch eager is in the results).
#
# Sides (--sides, default all): torchtpu (torchtpu bench, native cpu), eager
# (torch.export.load(...).module()), inductor (torch.compile of it, default
# options), ort (ONNX Runtime, sequential, all optimisations), xla
# (torchtpu bench --device xla-cpu, when `torchtpu devices` lists xla-cpu;
# else its column is empty). Every side runs N threads (torch.set_num_threads,
# ORT intra-op threads, GOMAXPROCS, OMP_NUM_THREADS) and times --runs runs
# after warm-up with the same loop; rounds alternate the sides model by model,
# and the table shows medians over rounds of each round's median latency.
# "best peer" is the fastest of inductor, ort and xla; ratio = torchtpu /
# best peer (< 1: torchtpu is faster). GEMM rows are GFLOP/s of square
# float32 products (ratio = torchtpu / best, > 1: faster), with one core's
# measured FMA peak (AVX-512, or AVX2 without it) and the share of N cores' peak torchtpu reaches.
# The CPU model and the load average are printed with the table.
#
# Wall-clock medians are what the table compares, and they mean something
# on a quiet machine only: before each round and each model the script
# measures, while idle, the cores other processes keep busy, and above 0.5
# per core it warns (the table says LOADED and points to its CPU-time
# table); with --require-quiet it waits up to 10 minutes for that load to
# fall, then refuses. Beside
# each median the table gives torchtpu's CPU time per run and thread, and
# each side's busy share (CPU time / (threads x wall time)).
# TORCHTPU_BIN and SGEMM_BIN use prebuilt binaries instead of building.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shared=${TORCHTPU_SHARED:-$root/../shared}
venv=${TORCHTPU_BENCH_VENV:-$HOME/.cache/torchtpu/venv-bench}
threads=2 runs=20 rounds=2 gemm=512,1024,2048,4096 sides=torchtpu,eager,inductor,ort,xla models_dir= quiet=
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --gemm) gemm=$2; shift 2 ;;
    --sides) sides=$2; shift 2 ;;
    --models-dir) models_dir=$2; shift 2 ;;
    --require-quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | grep '^#' | cut -c3-; exit 0 ;;
    -*) echo "bench-compare: unknown flag $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[ ${#models[@]} -gt 0 ] || models=(resnet18 resnet18@8 transformer_encoder_layer gpt2_tiny mobilenet
  resnet50 mobilenet_v3_large mobilenet_v3_small efficientnet_b0 vit_b_32 bert_small llama_small bert_base_128)
has() { case ",$sides," in *",$1,"*) return 0 ;; esac; return 1; }

"$root/scripts/install-bench-env.sh" "$venv" >&2
py=$venv/bin/python
bench=$root/tools/bench
if [ -z "$models_dir" ]; then
  stamp=$(cat "$bench"/bench_models.py "$bench"/export_models.py "$bench"/export_batch.py "$bench"/export_mobilenet.py |
    sha256sum | cut -c1-12)
  models_dir=$HOME/.cache/torchtpu/bench-models/$stamp
fi
mkdir -p "$models_dir"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${TORCHTPU_BIN:-}" ]; then cp "$TORCHTPU_BIN" "$work/torchtpu"; else (cd "$root" && go build -o "$work/torchtpu" ./cmd/torchtpu); fi
if [ -n "${SGEMM_BIN:-}" ]; then cp "$SGEMM_BIN" "$work/sgemm"; else (cd "$root" && go build -o "$work/sgemm" ./tools/bench/sgemm); fi
tpu=$work/torchtpu
xla=
if has xla && "$tpu" devices 2>/dev/null | awk '$1 == "xla-cpu" && $2 != "not" { ok = 1 } END { exit !ok }'; then xla=xla-cpu; fi

# export what is missing (PyPI torch), then verify every program on torchtpu
specs=() names=()
for m in "${models[@]}"; do
  base=${m%@*} batch=
  case "$m" in *@*) batch=${m##*@} ;; esac
  if [ -f "$shared/fixtures/models/$base.pt2" ]; then
    specs+=("$shared/fixtures/models/$base.pt2${batch:+@$batch}")
    names+=("$base${batch:+_b$batch}")
  else
    [ -z "$batch" ] || { echo "bench-compare: $m: @B works for fixtures only" >&2; exit 2; }
    specs+=("$m") names+=("$m")
  fi
done
(cd "$bench" && OMP_NUM_THREADS=$threads "$py" export_models.py "$models_dir" "${specs[@]}" 2>"$work/export.log" >/dev/null) ||
  { tail -20 "$work/export.log" >&2; echo "bench-compare: exporting the models failed" >&2; exit 1; }
for n in "${names[@]}"; do
  "$tpu" verify "$models_dir/$n.pt2" --io "$models_dir/$n.io.safetensors" --rtol 1e-4 --atol 1e-4 >"$work/verify.$n" 2>&1 ||
    { cat "$work/verify.$n" >&2; echo "bench-compare: torchtpu verify $n failed" >&2; exit 1; }
done

# Other processes' load: the CPUs' busy share over 3 s while this script
# sits idle (the load average would count this script's own runs), in
# cores. Above 0.5 per core, warn, or (--require-quiet) wait up to 10
# minutes for it to fall, then refuse.
cores=$(nproc)
maxload=0
busycores() {
  local a b
  a=$(awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat)
  sleep 3
  b=$(awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat)
  awk -v a="$a" -v b="$b" -v c="$cores" 'BEGIN { split(a, x); split(b, y); t = y[2] - x[2]; print (t > 0) ? c * (y[1] - x[1]) / t : 0 }'
}
loadcheck() {
  local l; l=$(busycores)
  if awk -v l="$l" -v c="$cores" 'BEGIN { exit !(l > 0.5 * c) }' && [ -n "$quiet" ]; then
    for _ in $(seq 60); do
      sleep 7
      l=$(busycores)
      awk -v l="$l" -v c="$cores" 'BEGIN { exit !(l > 0.5 * c) }' || break
    done
    if awk -v l="$l" -v c="$cores" 'BEGIN { exit !(l > 0.5 * c) }'; then
      echo "bench-compare: other processes keep $l of $cores cores busy after waiting 10 minutes: refusing (wall times would measure them)" >&2
      exit 3
    fi
  fi
  maxload=$(awk -v a="$maxload" -v b="$l" 'BEGIN { print (b > a) ? b : a }')
  if awk -v l="$l" -v c="$cores" 'BEGIN { exit !(l > 0.5 * c) }'; then
    echo "bench-compare: warning: other processes keep $l of $cores cores busy (above 0.5 per core): wall times include their work" >&2
  fi
}
loadcheck

peer_sides=$(echo "$sides" | tr ',' '\n' | grep -xE 'eager|inductor|ort' | paste -sd, || true)
export OMP_NUM_THREADS=$threads
: > "$work/results.jsonl"
tag() { sed "s/^{/{\"round\": $1, /" >> "$work/results.jsonl"; }
"$work/sgemm" -peak -n 64 -runs 1 -threads 1 | grep '"peak"' | tag 0
for r in $(seq "$rounds"); do
  loadcheck
  echo "round $r/$rounds: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  if [ -n "$gemm" ]; then
    if has torchtpu; then "$work/sgemm" -n "$gemm" -threads "$threads" -runs 7 | sed 's/^{/{"side": "torchtpu", /' | tag "$r"; fi
    if [ -n "$peer_sides" ]; then
      (cd "$bench" && "$py" peers_bench.py --threads "$threads" --runs 14 --sides "$peer_sides" --gemm "$gemm" 2>>"$work/peers.log") | grep '^{' | tag "$r"
    fi
  fi
  for n in "${names[@]}"; do
    loadcheck
    f=$models_dir/$n
    if has torchtpu; then
      "$tpu" bench "$f.pt2" --inputs "$f.io.safetensors" --threads "$threads" --runs "$runs" --warmup 3 --json |
        sed "s/^{/{\"side\": \"torchtpu\", \"kind\": \"model\", \"name\": \"$n\", /" | tag "$r"
    fi
    if [ -n "$xla" ]; then
      "$tpu" bench "$f.pt2" --inputs "$f.io.safetensors" --device "$xla" --threads "$threads" --runs "$runs" --warmup 3 --json 2>>"$work/xla.log" |
        sed "s/^{/{\"side\": \"xla\", \"kind\": \"model\", \"name\": \"$n\", /" | tag "$r" || echo "bench-compare: xla-cpu failed on $n" >&2
    fi
    if [ -n "$peer_sides" ]; then
      (cd "$bench" && "$py" peers_bench.py --threads "$threads" --runs "$runs" --sides "$peer_sides" "$f" 2>>"$work/peers.log") | grep '^{' | tag "$r"
    fi
  done
done
cp "$work/results.jsonl" "$models_dir/last-results.jsonl"

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
fam=$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') mod=$(grep -m1 '^model\s*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
loadcheck
"$py" "$bench/compare_table.py" --threads "$threads" --cpu "$cpu (family $fam, model $mod), $(nproc) cores" \
  --load "$(cut -d' ' -f1-3 /proc/loadavg)" --max-load "$maxload" "$work/results.jsonl"
