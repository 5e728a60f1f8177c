#!/usr/bin/env bash
# device-pack.sh — prepare .device/ (ignored by git) for a GPU machine run of
# device-check.sh: a cgo build of torchtpu for linux/amd64, the interpret/
# conformance files, and the fixture folders named as arguments (default:
# ops and models; the device tool carries at most 64 MiB per call, so split
# larger sets over several calls).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
rm -rf .device && mkdir -p .device/fixtures .device/conformance
grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
CGO_ENABLED=1 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags=-s -o .device/torchtpu ./cmd/torchtpu
cp "$shared"/conformance/stablehlo/interpret/*.mlir .device/conformance/
# The legalization pipeline's programs (backend/pjrt/legalize): its seed
# programs, a jax.export program with a symbolic batch, and the suite's
# shape-polymorphic and quantized programs, run with --sample.
mkdir -p .device/conformance/legalize
cp backend/pjrt/legalize/testdata/seeds/*.mlir backend/pjrt/testdata/jax/*.mlir .device/conformance/legalize/
cp "$shared"/conformance/stablehlo/testdata/*_dynamic*.mlir "$shared"/conformance/stablehlo/testdata/*_qi8.mlir .device/conformance/legalize/
for f in "${@:-ops models}"; do
  for d in $f; do cp -r "$shared/fixtures/$d" .device/fixtures/; done
done
du -sh .device
echo "run: scripts/device-check.sh -b .device/torchtpu -c .device/conformance .device/fixtures/*"
