#!/usr/bin/env bash
# bench-xla: the native backend (cpu) and XLA's CPU compiler (xla-cpu, the PJRT
# plugin of scripts/install-pjrt.sh) on the same programs, side by side in one run.
#
#   scripts/bench-xla.sh [--threads N] [--runs N] [--rounds N] [--no-gemm] [MODEL...]
#
# MODEL is a fixture name (../shared/fixtures/models/MODEL.pt2 with its .io inputs);
# default: every model fixture. Each round runs `torchtpu bench --json` on cpu and
# then on xla-cpu for every model; the table shows medians over rounds, the ratio
# cpu/xla-cpu (below 1: the native backend is faster) and the bytes xla-cpu moved
# host → device and back on the first run (weights included) and per later run
# (cpu moves none: its buffers are host memory). Then BenchmarkGEMM
# (backend/pjrt/xla_bench_test.go) times f32 1024³ and 2048³ matmuls on both with
# the operands resident. TORCHTPU_BIN uses a prebuilt binary.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shared=${TORCHTPU_SHARED:-$root/../shared}
threads=2 runs=10 rounds=2 gemm=1
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --no-gemm) gemm=0; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | grep '^#' | cut -c3-; exit 0 ;;
    -*) echo "bench-xla: unknown flag $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
if [ ${#models[@]} -eq 0 ]; then
  for f in "$shared"/fixtures/models/*.pt2; do models+=("$(basename "${f%.pt2}")"); done
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-xla.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${TORCHTPU_BIN:-}" ]; then bin=$TORCHTPU_BIN; else (cd "$root" && go build -o "$work/torchtpu" ./cmd/torchtpu); bin=$work/torchtpu; fi
"$bin" devices | grep '^xla-cpu  /' >/dev/null || { echo "bench-xla: no usable xla-cpu plugin (scripts/install-pjrt.sh xla-cpu)" >&2; exit 1; }

for r in $(seq "$rounds"); do
  for m in "${models[@]}"; do
    pt2=$shared/fixtures/models/$m.pt2
    for dev in cpu xla-cpu; do
      "$bin" bench "$pt2" --inputs "${pt2%.pt2}.io.safetensors" --device "$dev" --threads "$threads" \
        --runs "$runs" --cache-dir "$work/cache" --json >"$work/$m.$dev.$r.json" 2>"$work/$m.$dev.$r.err" || true
    done
  done
done

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $threads threads, $runs runs x $rounds rounds"
python3 - "$work" "$rounds" "${models[@]}" <<'PY'
import json, statistics, sys
work, rounds, models = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def get(m, dev):
    out = []
    for r in range(1, rounds + 1):
        try:
            out.append(json.load(open(f"{work}/{m}.{dev}.{r}.json")))
        except Exception:
            pass
    return out
print(f"{'model':38} {'cpu ms':>9} {'xla-cpu ms':>10} {'cpu/xla':>8}   {'xla first run h2d/d2h B':>24} {'xla per run h2d/d2h B':>22}")
for m in models:
    c, x = get(m, "cpu"), get(m, "xla-cpu")
    if not c or not x:
        print(f"{m:38} {'-' if not c else '':>9} {'failed' if not x else '':>10}")
        continue
    cm = statistics.median(r["median_ms"] for r in c)
    xm = statistics.median(r["median_ms"] for r in x)
    f = x[-1]
    print(f"{m:38} {cm:9.3f} {xm:10.3f} {cm / xm:8.2f}   {f['first_run_h2d_bytes']:>12}/{f['first_run_d2h_bytes']:<11} "
          f"{f['h2d_bytes_per_run']:>11.0f}/{f['d2h_bytes_per_run']:<10.0f}")
PY
if [ "$gemm" = 1 ]; then
  echo "GEMM (f32, operands resident):"
  (cd "$root" && GOMAXPROCS=$threads go test ./backend/pjrt/ -run '^$' -bench BenchmarkGEMM -benchtime 5x 2>/dev/null) |
    awk '/^BenchmarkGEMM/ { split($1, p, "/"); sub(/-[0-9]+$/, "", p[3]); g[p[2] " " p[3]] = $5; n[p[2]] = 1 }
         END { for (k in n) printf "  %s^3  cpu %s GFLOP/s  xla-cpu %s GFLOP/s  cpu/xla %.2f\n", k, g[k " cpu"], g[k " xla-cpu"], g[k " cpu"] / g[k " xla-cpu"] }'
fi
