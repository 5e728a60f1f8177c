#!/usr/bin/env bash
# build-python: builds libtorchtpu (the Go engine as a C shared library) into
# the Python package, so that `PYTHONPATH=python python3 -c 'import torchtpu'`
# works without pip (in the torch-oracle chroot too), and checks the C header.
#
#   scripts/build-python.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$PATH:/usr/local/go/bin"
out=python/torchtpu/lib/libtorchtpu.so
mkdir -p "$(dirname "$out")"
tmp=${out%.so}.tmp.so
go build -buildmode=c-shared -o "$tmp" ./capi/libtorchtpu
rm -f "${tmp%.so}.h" "${out%.so}.h" "$out.h"  # the C header cgo writes beside it: capi/libtorchtpu/torchtpu.h is the one
mv "$tmp" "$out"
go run ./capi/libtorchtpu/genheader -src capi/libtorchtpu -doc capi/doc.go -o capi/libtorchtpu/torchtpu.h -check
echo "built $out"
