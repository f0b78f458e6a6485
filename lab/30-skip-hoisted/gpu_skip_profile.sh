#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry): where the block-aligned joint kernel's time goes at
# low joint density (issue 17, lab/30-skip-hoisted). Nsight Compute's warp-state sampling of
# joint-64x32 at A and B density 0.25 and 0.5 (128-wide segments, 4096^3, the headline's problems)
# and of pipelined on dense operands, each with its source page (SASS and CUDA lines: the module is
# built with -lineinfo), so the gather, the dense-tile scan, the main loop and the C store can be
# told apart. Then K12's streamed loop at K11's 128 x 128 block in the variant harness.
# Writes $OUT/skip-NAME.txt / .csv (SASS) / -cuda.csv (CUDA lines) and $OUT/variants.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
export NVIDIA_TF32_OVERRIDE=0
reasons='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
profile() {  # profile NAME KERNEL-REGEX -- BENCH-ARGS...
  local name=$1 kernel=$2
  shift 3
  # bench verifies first (one launch) and warms up once: the third launch is the timed problem.
  ncu --clock-control none --section WarpStateStats --section SourceCounters --section SchedulerStats \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --metrics "$reasons" \
    --kernel-name "regex:$kernel" --launch-skip 2 --launch-count 1 -o "/tmp/$name" \
    "$BIN/tileskip" bench --backend cuda --size 4096 --warmup 1 --repeat 1 --no-baseline "$@" > "/tmp/$name.log" 2>&1
  echo "$name: ncu rc=$?"
  tail -3 "/tmp/$name.log"
  ncu -i "/tmp/$name.ncu-rep" --print-details all --page details > "$OUT/skip-$name.txt" 2>&1
  ncu -i "/tmp/$name.ncu-rep" --page source --print-source sass --csv > "$OUT/skip-$name.csv" 2>&1
  echo "$name: sass rc=$? $(wc -l < "$OUT/skip-$name.csv") lines"
  ncu -i "/tmp/$name.ncu-rep" --page source --print-source cuda --csv > "$OUT/skip-$name-cuda.csv" 2>&1
  echo "$name: cuda rc=$? $(wc -l < "$OUT/skip-$name-cuda.csv") lines"
}
# PROFILES picks among them (default the first three, then the variant harness, where it was carried).
for p in ${PROFILES:-joint025 joint050 dense variants}; do
  case $p in
    joint025) profile joint025 joint64x32 -- --kernel joint-64x32 --generator segments --granularity 128 --density-a 0.25 --density-b 0.25 ;;
    joint050) profile joint050 joint64x32 -- --kernel joint-64x32 --generator segments --granularity 128 --density-a 0.5 --density-b 0.5 ;;
    dense) profile dense pipelined -- --kernel pipelined --density-a 1 --density-b 1 ;;
    hoisted) profile hoisted hoisted -- --kernel hoisted --density-a 1 --density-b 1 ;;
    variants) OUT=/tmp/tune bash lab/tools/dense_variants/run_dense_variants.sh --sizes 2048,4096 --repeat 15 \
                --filter "(catalogue)|k12 hoisted 128x128" > "$OUT/variants.log" 2>&1
              echo "variants rc=$?"; tail -30 "$OUT/variants.log" ;;
  esac
done
