#!/usr/bin/env bash
# bench-compare: PyTorch and torchtpu on the same programs, in the same run.
#
#   scripts/bench-compare.sh [--threads N] [--runs N] [--rounds N] [--gemm 1024,2048] [MODEL...]
#
# MODEL is a fixture name (../shared/fixtures/models/MODEL.pt2 with its
# MODEL.io.safetensors inputs) or a path to MODEL.pt2 beside its .io file;
# MODEL@B re-exports it at batch B first (tools/bench/export_batch.py);
# a MODEL with no fixture but a tools/bench/export_MODEL.py is built by
# that script (mobilenet: a MobileNetV2-style model, depthwise convolutions);
# default: resnet18 resnet18@8 transformer_encoder_layer gpt2_tiny. Each round runs
# PyTorch (torch-oracle: torch.export.load(...).module() on the .io inputs,
# torch.set_num_threads(N), OpenBLAS) and then torchtpu bench, plus torch.mm
# against package gemm on square float32 matrices; the table shows medians
# over rounds and the ratio torchtpu/PyTorch (latency: < 1 is faster than
# PyTorch; GEMM: > 1 is faster). "cpu" columns divide process CPU time by
# the thread count: on a loaded machine they show what the threads reach
# while they run. The machine's load average is printed with the table.
# TORCHTPU_BIN and SGEMM_BIN use prebuilt binaries instead of building.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shared=${TORCHTPU_SHARED:-$root/../shared}
oracle=$shared/tools/torch-oracle
threads=2 runs=10 rounds=2 gemm=1024,2048
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --gemm) gemm=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | grep '^#' | cut -c3-; exit 0 ;;
    -*) echo "bench-compare: unknown flag $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[ ${#models[@]} -gt 0 ] || models=(resnet18 resnet18@8 transformer_encoder_layer gpt2_tiny)

# torch-oracle sees only the current folder: gather everything in one
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${TORCHTPU_BIN:-}" ]; then cp "$TORCHTPU_BIN" "$work/torchtpu"; else (cd "$root" && go build -o "$work/torchtpu" ./cmd/torchtpu); fi
if [ -n "${SGEMM_BIN:-}" ]; then cp "$SGEMM_BIN" "$work/sgemm"; else (cd "$root" && go build -o "$work/sgemm" ./tools/bench/sgemm); fi
cp "$root/tools/bench/torch_bench.py" "$root/tools/bench/export_batch.py" "$work/"
specs=()
for m in "${models[@]}"; do
  batch=
  case "$m" in *@*) batch=${m##*@}; m=${m%@*} ;; esac
  case "$m" in
    *.pt2) pt2=$m ;;
    *) pt2=$shared/fixtures/models/$m.pt2 ;;
  esac
  io=${pt2%.pt2}.io.safetensors
  if [ ! -f "$pt2" ] && [ -f "$root/tools/bench/export_$m.py" ]; then
    # no fixture: a model that tools/bench/export_NAME.py builds
    name=$m
    cp "$root/tools/bench/export_$m.py" "$work/"
    (cd "$work" && "$oracle" run -- python3 "export_$m.py" "$name" >/dev/null 2>&1) ||
      { echo "bench-compare: export_$m.py failed" >&2; exit 1; }
  else
    [ -f "$pt2" ] && [ -f "$io" ] || { echo "bench-compare: missing $pt2 or $io" >&2; exit 1; }
    name=$(basename "$pt2" .pt2)
    cp "$pt2" "$work/$name.pt2"
    cp "$io" "$work/$name.io.safetensors"
  fi
  if [ -n "$batch" ]; then
    (cd "$work" && "$oracle" run -- python3 export_batch.py "$name.pt2" "$name.io.safetensors" "$batch" "${name}_b$batch" >/dev/null 2>&1) ||
      { echo "bench-compare: re-exporting $name at batch $batch failed" >&2; exit 1; }
    name=${name}_b$batch
  fi
  specs+=("$name")
done

cd "$work"
: > results.jsonl
for r in $(seq "$rounds"); do
  echo "round $r/$rounds: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  args=()
  for s in "${specs[@]}"; do args+=("$s.pt2:$s.io.safetensors"); done
  # torch.set_num_threads does not reach OpenBLAS's own thread pool (it
  # uses every core unless told): pin it through the environment too
  "$oracle" run -- env OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" python3 torch_bench.py --threads "$threads" --runs "$runs" --gemm "$gemm" "${args[@]}" |
    { grep '^{' || true; } | sed 's/^{/{"side": "torch", /' >> results.jsonl
  if [ -n "$gemm" ]; then
    ./sgemm -n "$gemm" -threads "$threads" -runs "$runs" | sed 's/^{/{"side": "torchtpu", /' >> results.jsonl
  fi
  for s in "${specs[@]}"; do
    ./torchtpu bench "$s.pt2" --inputs "$s.io.safetensors" --threads "$threads" --runs "$runs" --json |
      sed "s/^{/{\"side\": \"torchtpu\", \"kind\": \"model\", \"name\": \"$s\", /" >> results.jsonl
  done
done
load=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$threads" "$load" results.jsonl <<'PY'
import json, statistics, sys
threads, load, path = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [json.loads(l) for l in open(path) if l.startswith("{")]  # the chroot may print log lines
info = next((r for r in rows if r.get("kind") == "info"), {})
def med(side, kind, key, field):
    v = [r[field] for r in rows if r.get("side") == side and r.get("kind") == kind and r.get(key[0]) == key[1] and field in r]
    return statistics.median(v) if v else float("nan")
print(f"threads {threads}, load average {load}, torch {info.get('torch', '?')} ({info.get('blas', '?')})")
print()
print(f"{'GEMM f32':<28}{'torch GFLOP/s':>14}{'ours GFLOP/s':>14}{'ratio':>7}{'torch cpu':>11}{'ours cpu':>10}{'ratio':>7}")
for n in sorted({r["n"] for r in rows if r.get("kind") == "gemm"}):
    t, o = med("torch", "gemm", ("n", n), "gflops"), med("torchtpu", "gemm", ("n", n), "gflops")
    tc, oc = med("torch", "gemm", ("n", n), "cpu_gflops"), med("torchtpu", "gemm", ("n", n), "cpu_gflops")
    print(f"{f'{n}x{n}x{n}':<28}{t:>14.1f}{o:>14.1f}{o/t:>7.2f}{tc:>11.1f}{oc:>10.1f}{oc/tc:>7.2f}")
print()
print(f"{'model (latency, ms)':<28}{'torch med':>10}{'ours med':>10}{'ratio':>7}{'torch p90':>10}{'ours p90':>10}{'torch cpu':>10}{'ours cpu':>10}{'ratio':>7}{'compile':>9}{'peak MB':>9}")
for name in dict.fromkeys(r["name"] for r in rows if r.get("kind") == "model"):
    k = ("name", name)
    t, o = med("torch", "model", k, "median_ms"), med("torchtpu", "model", k, "median_ms")
    tp, op = med("torch", "model", k, "p90_ms"), med("torchtpu", "model", k, "p90_ms")
    tc, oc = med("torch", "model", k, "cpu_ms"), med("torchtpu", "model", k, "cpu_ms")
    cm, rss = med("torchtpu", "model", k, "compile_ms"), med("torchtpu", "model", k, "peak_rss_mb")
    print(f"{name:<28}{t:>10.3f}{o:>10.3f}{o/t:>7.2f}{tp:>10.3f}{op:>10.3f}{tc:>10.3f}{oc:>10.3f}{oc/tc if tc else float('nan'):>7.2f}{cm:>9.1f}{rss:>9.1f}")
PY
