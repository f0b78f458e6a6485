#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry): how much of a persistent skipping kernel's time
# its last tiles leave the multiprocessors idle (issue 17). Nsight Compute's per-SM active cycles
# (min / avg / max against the kernel's elapsed cycles) and warps resident per active cycle, for
# joint-64x32 on the headline's problems (128-wide segments at 0.25 and 0.5, dense operands) and K12.
# Warp sampling cannot show this: an idle SM has no warp to sample.
# lab/35-tile-order; lab/35-tile-order/tail_sim.py simulates the same share. Writes $OUT/tail-NAME.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
export NVIDIA_TF32_OVERRIDE=0
metrics=sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,\
sm__warps_active.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_elapsed,\
sm__maximum_warps_per_active_cycle_pct,launch__grid_size,launch__occupancy_limit_registers,\
launch__registers_per_thread,gpu__time_duration.sum
tail_of() {  # tail_of NAME KERNEL-REGEX -- BENCH-ARGS...
  local name=$1 kernel=$2
  shift 3
  ncu --clock-control none --metrics "$metrics" --kernel-name "regex:$kernel" --launch-skip 2 --launch-count 3 \
    "$BIN/tileskip" bench --backend cuda --size 4096 --warmup 1 --repeat 3 --no-baseline "$@" > "$OUT/tail-$name.txt" 2>&1
  echo "$name: ncu rc=$?"
  grep -E "sm__|launch__|gpu__" "$OUT/tail-$name.txt" | head -33
}
for p in ${TAILS:-joint025 joint050 jointdense hoisted}; do
  case $p in
    joint025) tail_of joint025 joint64x32 -- --kernel joint-64x32 --generator segments --granularity 128 --density-a 0.25 --density-b 0.25 ;;
    joint050) tail_of joint050 joint64x32 -- --kernel joint-64x32 --generator segments --granularity 128 --density-a 0.5 --density-b 0.5 ;;
    jointdense) tail_of jointdense joint64x32 -- --kernel joint-64x32 --density-a 1 --density-b 1 ;;
    hoisted) tail_of hoisted hoisted -- --kernel hoisted --density-a 1 --density-b 1 ;;
  esac
done
