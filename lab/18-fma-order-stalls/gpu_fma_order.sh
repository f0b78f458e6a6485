#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry): the FMA-order builds of dense_variants
# (lab/18-fma-order-stalls) timed against cuBLAS, CUTLASS's SIMT anchor in the same session, and
# Nsight Compute's warp states for K12 as the catalogue builds it, K12 with B's pairs swapped and
# CUTLASS 128x256x8. Expects .carry/tune/dense_variants (lab/tools/dense_variants/run_dense_variants.sh with
# BUILD_ONLY=1, sm_90) and .carry/bin/cutlass_sgemm_anchor (lab/tools/cutlass_anchor/build.sh).
# Everything lands in $OUT: order.log, order.csv, anchor.txt, ncu-*.txt, gpu.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
V=.carry/tune/dense_variants
"$V" --filter order --sizes 2048,4096,8192 --repeat 15 --csv "$OUT/order.csv" > "$OUT/order.log" 2>&1
echo "order: rc=$?"
.carry/bin/cutlass_sgemm_anchor --repeat 15 > "$OUT/anchor.txt" 2>&1
echo "anchor: rc=$?"
sections="--section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section SchedulerStats"
# The harness checks a variant at 7 shapes first (6 odd, then 4096^3): launch 9 is the second
# warm-up run at 4096^3.
for v in "order rowmajor k12:hoistedOrdered" "order rowmajor pairs k12:hoistedOrdered"; do
  filter=${v%%:*} kernel=${v##*:}
  ncu --clock-control none $sections --kernel-name "regex:$kernel" --launch-skip 8 --launch-count 1 \
    "$V" --filter "$filter" --sizes 4096 --repeat 1 > "$OUT/ncu-${filter// /-}.txt" 2>&1
  echo "ncu $filter: rc=$?"
done
ncu --clock-control none $sections --launch-skip 1 --launch-count 1 \
  .carry/bin/cutlass_sgemm_anchor --only 128x256 --sizes 4096 --repeat 1 > "$OUT/ncu-cutlass-128x256.txt" 2>&1
echo "ncu cutlass: rc=$?"
sed -n '/^rel.err/,/^predictions/p' "$OUT/order.log"
grep -E "^ *(4096|size|2048|8192)|128x256" "$OUT/anchor.txt" | head -20
