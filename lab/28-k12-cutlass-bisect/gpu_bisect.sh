#!/usr/bin/env bash
# On the GPU machine (device tool, carry .carry): the K12 / CUTLASS bisection of lab/28-k12-cutlass-bisect.
# Expects the anchor built twice by build.sh: .carry/bin/cutlass_sgemm_anchor (ptxas's default) and
# .carry/bin/cutlass_sgemm_anchor8 (NVCC_FLAGS=-Xptxas=--register-usage-level=8, the product's setting).
# Runs both, two rounds alternating (every variant's C compared with cuBLAS's), then the dense_variants harness's
# streamlined K12 with and without whole-line L2 loads (built here at level 8), then Nsight Compute's
# memory section (L2 hit rate) for K12, the hybrid and the hybrid with whole-line loads at 4096^3.
# Logs land in $OUT/bisect/ (about 3 minutes on an H100 or H200).
set -uo pipefail
cd "$(dirname "$0")/../.."
export NVIDIA_TF32_OVERRIDE=0
OUT=${OUT:-/tmp/out}
log=$OUT/bisect && mkdir -p "$log"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$log/device.txt" 2>&1
for round in 1 2; do
  for b in cutlass_sgemm_anchor cutlass_sgemm_anchor8; do
    timeout 120 ".carry/bin/$b" --repeat 15 --sizes 4096,8192 > "$log/$b-r$round.txt" 2>&1
    echo "$b round $round: rc=$?"
  done
done
BUILD=/tmp/tune8 OUT="$log/stream" NVCC_FLAGS=-Xptxas=--register-usage-level=8 REBUILD=1 timeout 240 \
  bash lab/tools/dense_variants/run_dense_variants.sh --filter stream --sizes 4096,8192 --repeat 15 > /dev/null 2>&1
echo "stream variants: rc=$?"
for only in k12 k12-cutlass-warp k12-cutlass-warp-l2line k12-cutlass-warp-copy-order-l2line 128x256s2; do
  timeout 90 ncu --clock-control none --section MemoryWorkloadAnalysis --section SpeedOfLight --launch-skip 1 --launch-count 1 \
    .carry/bin/cutlass_sgemm_anchor8 --only "$only" --sizes 4096 --repeat 1 > "$log/ncu-$only.txt" 2>&1
  echo "ncu $only: rc=$? $(grep -m1 'L2 Hit Rate' "$log/ncu-$only.txt")"
done
