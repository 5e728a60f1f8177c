#!/usr/bin/env bash
# Full-size held-out check (not committed data): generate the full set with
# real PyTorch and verify every case with torchtpu.
#
#   tools/heldout/run_full.sh [WORKDIR]     (default /tmp/heldout-full)
#
# WORKDIR receives the generator copy, WORKDIR/full the cases and
# WORKDIR/verify.txt one line per case: name, PASS/FAIL, the last line of
# `torchtpu verify` (or its error), seconds taken.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-/tmp/heldout-full}
mkdir -p "$work"
cp "$here"/*.py "$work"/
(cd "$root" && go build -o "$work/torchtpu" ./cmd/torchtpu)
if [ ! -f "$work/full/INDEX.json" ]; then
  (cd "$work" && /work/shared/tools/torch-oracle run sid -- python3 gen.py full full)
fi
: > "$work/verify.txt"
for pt2 in "$work"/full/*.pt2; do
  name=$(basename "$pt2" .pt2)
  start=$(date +%s)
  if out=$(timeout 600 "$work/torchtpu" verify "$pt2" --io "$work/full/$name.io.safetensors" 2>&1); then
    status=PASS
  else
    status=FAIL
  fi
  last=$(printf '%s\n' "$out" | grep -E 'max abs|error|FAIL|PASS' | sort -t' ' -k4 -g | tail -2 | tr '\n' ' ' | cut -c1-400)
  echo "$name $status $(( $(date +%s) - start ))s $last" | tee -a "$work/verify.txt"
done
