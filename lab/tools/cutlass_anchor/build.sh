#!/usr/bin/env bash
# Builds the CUTLASS anchor (cutlass_sgemm_anchor.cu) for sm_90 against a fetched copy of CUTLASS's
# headers: CUTLASS_DIR must hold include/cutlass (e.g. `git archive` of NVIDIA/cutlass's include/).
# Usage: lab/tools/cutlass_anchor/build.sh OUT_BINARY   (CUTLASS_DIR=/path/to/cutlass)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build.sh OUT_BINARY}"
: "${CUTLASS_DIR:?set CUTLASS_DIR to a copy of CUTLASS holding include/cutlass}"
[[ -f "$CUTLASS_DIR/include/cutlass/gemm/device/gemm.h" ]] || { echo "no CUTLASS headers under $CUTLASS_DIR/include" >&2; exit 2; }
# tileskip's K12 and the bisection probe beside CUTLASS's kernels: our headers need C++20 and the
# repository root; NVCC_FLAGS adds flags (e.g. -Xptxas=--register-usage-level=8 as the product).
root="$(cd "$here/../../.." && pwd)"
nvcc -O3 -std=c++20 --expt-relaxed-constexpr -arch=sm_90 -I"$CUTLASS_DIR/include" -I"$root/backends/cuda" -I"$root" \
  ${NVCC_FLAGS:-} -Xptxas=-v "$here/cutlass_sgemm_anchor.cu" -lcublas -o "$out"
