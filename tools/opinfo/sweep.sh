#!/usr/bin/env bash
# The whole OpInfo sweep: generate the cases with real PyTorch (if not yet
# done), run them on a device and write the coverage table.
#
#   tools/opinfo/sweep.sh [--device D] [--work DIR] [--shards N] [-- RUNNER FLAGS...]
#
# DIR (default ~/.cache/torchtpu/opinfo) receives a copy of gen.py, the
# cases under DIR/cases (data, not source: never committed) and the
# generator's logs. The generator runs in N shards at once (default 2) and
# resumes where it stopped. The table goes to docs/coverage.md for the
# native cpu device, docs/coverage-DEVICE.md for the others.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
oracle=${TORCH_ORACLE:-$root/../shared/tools/torch-oracle}
device=cpu
work=${HOME}/.cache/torchtpu/opinfo
shards=2
while [ $# -gt 0 ]; do
  case $1 in
    --device) device=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "sweep.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
cp "$here/gen.py" "$work/"
pids=()
for ((s = 0; s < shards; s++)); do
  (cd "$work" && "$oracle" run sid -- python3 gen.py cases --shard "$s/$shards" >"gen-$s.log" 2>&1) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
(cd "$work" && "$oracle" run sid -- python3 gen.py cases --errors >gen-errors.log 2>&1)
out=$root/docs/coverage.md
[ "$device" = cpu ] || out=$root/docs/coverage-$device.md
cd "$root"
go run ./tools/opinfo -cases "$work/cases" -device "$device" -out "$out" "$@"
