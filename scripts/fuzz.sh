#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [PATTERN]
#
# Runs every Go fuzz target of the repository (func FuzzX in a _test.go
# file) for SECONDS each (default 10), one after the other, with
# FUZZ_PARALLEL workers (default 2). PATTERN, a regular expression, keeps
# only the targets whose "package/FuzzX" name matches it. FUZZ_MINIMIZE
# (default 10x: 10 runs) bounds the minimization of each new input.
#
# `go test` alone already runs each target's seeds and the crashers kept
# under testdata/fuzz/FuzzX/; this script mutates them. A failing target
# leaves its input in testdata/fuzz/FuzzX/ (printed here too, for CI logs):
# fix the cause and commit the file as a regression seed.
#
# CI runs it with 10 seconds per target (.ci/run); run it longer by hand,
# e.g. scripts/fuzz.sh 600 for the 10 minutes per target of issue 20.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

secs=${1:-10}
pattern=${2:-.}
parallel=${FUZZ_PARALLEL:-2}
# Minimizing each new interesting input (60 s by default) would take most
# of a short run on inputs as large as an archive; crashers are still
# minimized, for this many runs (FUZZ_MINIMIZE=60s to spend longer).
minimize=${FUZZ_MINIMIZE:-10x}

# Every fuzz target: "package-dir target".
mapfile -t targets < <(git ls-files --cached --others --exclude-standard '*_test.go' | xargs grep -H -o '^func Fuzz[A-Za-z0-9_]*' |
  sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)$|\1 \2|; s|^[^ /]*_test\.go:func (Fuzz[A-Za-z0-9_]*)$|. \1|' | sort)

failed=()
ran=0
start=$(date +%s)
for t in "${targets[@]}"; do
  dir=${t% *}
  name=${t#* }
  if ! [[ "$dir/$name" =~ $pattern ]]; then
    continue
  fi
  ran=$((ran + 1))
  echo "== fuzz ./$dir $name (${secs}s)"
  before=$(ls "$dir/testdata/fuzz/$name" 2>/dev/null | sort)
  t0=$(date +%s)
  log=$(mktemp)
  for try in 1 2 3; do
    go test "./$dir" -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" -fuzzminimizetime "$minimize" -parallel "$parallel" >"$log" 2>&1
    rc=$?
    # The progress lines, but the last, are noise in a CI log.
    grep -v -E '^fuzz: elapsed: ' "$log"
    grep -E '^fuzz: elapsed: .*execs' "$log" | tail -1
    # Go's fuzz coordinator can report the end of -fuzztime itself as a
    # failure, "context deadline exceeded" with no input written, when a
    # worker is slow to stop (a race in internal/fuzz, go.dev/issue/75804,
    # fixed in Go 1.27). A real finding always writes its input and names
    # it; that bare message alone is run again (up to three tries) rather than
    # reported.
    if [ "$rc" -ne 0 ] && [ "$try" -lt 3 ] &&
      grep -q -x -E '[[:space:]]*context deadline exceeded' "$log" &&
      ! grep -q -E 'Failing input written|panic:|_test\.go:[0-9]+:' "$log" &&
      [ "$(ls "$dir/testdata/fuzz/$name" 2>/dev/null | sort)" = "$before" ]; then
      echo "   ${name}: the fuzz engine's end-of-time race (context deadline exceeded, no input written); once more"
      continue
    fi
    break
  done
  rm -f "$log"
  echo "   ${name}: exit ${rc}, $(( $(date +%s) - t0 ))s"
  if [ "$rc" -ne 0 ]; then
    failed+=("./$dir $name")
    after=$(ls "$dir/testdata/fuzz/$name" 2>/dev/null | sort)
    for f in $(comm -13 <(echo "$before") <(echo "$after")); do
      echo "--- new failing input $dir/testdata/fuzz/$name/$f:"
      head -c 4000 "$dir/testdata/fuzz/$name/$f"
      echo
    done
  fi
done

echo "== fuzz: ${ran} targets, ${secs}s each, $(( $(date +%s) - start ))s in all, ${#failed[@]} failed"
if [ "$ran" -eq 0 ]; then
  echo "no fuzz target matches ${pattern}" >&2
  exit 1
fi
if [ "${#failed[@]}" -ne 0 ]; then
  printf '   failed: %s\n' "${failed[@]}"
  exit 1
fi
