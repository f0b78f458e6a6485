#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry): where the warps of K12, of CUTLASS's SIMT
# 128x256x8 and of the lean cp.async build wait, instruction by instruction (Nsight Compute's
# warp-state sampling, SASS view) plus each kernel's stall reasons per issued instruction.
# Expects .carry/tune/dense_variants and .carry/bin/cutlass_sgemm_anchor (as gpu_fma_order.sh).
# Writes $OUT/stall-NAME.csv (the source page) and $OUT/stall-NAME.txt (sections and reasons).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export NVIDIA_TF32_OVERRIDE=0
V=.carry/tune/dense_variants
reasons='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
profile() {  # profile NAME NCU-FILTER-ARGS... -- COMMAND...
  local name=$1
  shift
  local args=()
  while [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  ncu --clock-control none --section WarpStateStats --section SourceCounters --section SchedulerStats \
    --metrics "$reasons" "${args[@]}" --launch-count 1 -o "/tmp/$name" "$@" > "/tmp/$name.log" 2>&1
  echo "$name: ncu rc=$?"
  ncu -i "/tmp/$name.ncu-rep" --print-details all --page details > "$OUT/stall-$name.txt" 2>&1
  ncu -i "/tmp/$name.ncu-rep" --page source --print-source sass --csv > "$OUT/stall-$name.csv" 2>&1
  echo "$name: source rc=$? $(wc -l < "$OUT/stall-$name.csv") lines"
}
# The harness checks a variant at 7 shapes first: launch 9 of its kernel is a 4096^3 warm-up run.
profile k12 --kernel-name regex:hoistedOrdered --launch-skip 8 -- "$V" --filter "order rowmajor k12" --sizes 4096 --repeat 1
profile lean3zigzag --kernel-name regex:leanCopy --launch-skip 8 -- "$V" --filter "order zigzag lean3" --sizes 4096 --repeat 1
profile cutlass --launch-skip 1 -- .carry/bin/cutlass_sgemm_anchor --only 128x256 --sizes 4096 --repeat 1
grep -h -E "stalled_.*ratio" "$OUT"/stall-*.txt | head -5
