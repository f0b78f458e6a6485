#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry, with the CUTLASS anchor built by
# lab/tools/cutlass_anchor/build.sh into .carry/bin/cutlass_sgemm_anchor): what a skipping kernel's time
# would be if it skipped perfectly (issue 17, lab/38-kept-work). Block-aligned zeros at A = B = d
# keep d^2 of the K-blocks of every tile, so the same products with every kept K-block packed together
# are a dense problem of M = N = 4096 and K = 4096 d^2; cuBLAS, CUTLASS's SIMT SGEMM and K12 on that
# problem are the bound the skipping kernels' time is held against. Steps, in the order given:
#   anchor  cuBLAS and CUTLASS at 4096 x 4096 x K for K = 256, 1024, 4096;
#   bench   ROUNDS rounds of tileskip's dense kernels and cuBLAS on the packed problems, alternating
#           with the joint kernels and cuBLAS on the headline's block-aligned problems at 0.25 and 0.5;
#   tail    Nsight Compute's per-SM active cycles (lab/35-tile-order/gpu_tail.sh's metrics) for cuBLAS,
#           CUTLASS 128x256 and K12 at 4096 x 4096 x 256, and gpu_tail.sh's own joint-64x32 at
#           0.25 / 0.25 ($OUT/tail-joint025.txt).
# Logs land in $OUT/kept-STEP.txt.   [ROUNDS=2] lab/38-kept-work/gpu_kept_work.sh anchor bench tail
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>&1
anchor=$BIN/cutlass_sgemm_anchor
metrics=sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,\
sm__warps_active.avg.per_cycle_active,launch__grid_size,launch__block_size,launch__registers_per_thread,gpu__time_duration.sum
dense() {  # dense K: tileskip's dense kernels and cuBLAS on 4096 x 4096 x K, dense operands
  timeout 180 "$BIN/tileskip" bench --backend cuda --kernel hoisted,pipelined,joint-64x32,joint-32x32,cublas --m 4096 --n 4096 --k "$1" \
    --density-a 1 --density-b 1 --warmup 5 --repeat 50
}
joint() {  # joint D: the headline's block-aligned problem at A = B = D
  timeout 180 "$BIN/tileskip" bench --backend cuda --kernel joint-64x32,joint-32x32,cublas --size 4096 --generator segments \
    --granularity 128 --density-a "$1" --density-b "$1" --warmup 5 --repeat 50
}
for step in "$@"; do
  start=$SECONDS
  case $step in
    anchor)
      for k in 256 1024 4096; do timeout 120 "$anchor" --repeat 50 --sizes 4096 --k "$k"; echo "k $k: rc=$?"; done \
        > "$OUT/kept-anchor.txt" 2>&1 ;;
    bench)
      for round in $(seq "${ROUNDS:-2}"); do
        for run in "dense 256" "joint 0.25" "dense 1024" "joint 0.5"; do
          echo "== round $round: $run"
          $run
          echo "rc=$?"
        done
      done > "$OUT/kept-bench.txt" 2>&1 ;;
    tail)
      {
        echo "== cuBLAS 4096x4096x256"
        timeout 120 ncu --clock-control none --metrics "$metrics" --launch-skip 1 --launch-count 1 \
          "$anchor" --only cublas --sizes 4096 --k 256 --repeat 1
        echo "== CUTLASS 128x256 4096x4096x256"
        timeout 120 ncu --clock-control none --metrics "$metrics" --launch-skip 1 --launch-count 1 \
          "$anchor" --only 128x256 --sizes 4096 --k 256 --repeat 1
        echo "== K12 4096x4096x256"
        timeout 120 ncu --clock-control none --metrics "$metrics" --kernel-name regex:hoisted --launch-skip 2 --launch-count 1 \
          "$BIN/tileskip" bench --backend cuda --kernel hoisted --m 4096 --n 4096 --k 256 --density-a 1 --density-b 1 \
          --no-baseline --warmup 2 --repeat 1
      } > "$OUT/kept-tail.txt" 2>&1
      # joint-64x32 at 0.25 / 0.25 as step 35 profiled it: $OUT/tail-joint025.txt
      TAILS=joint025 bash lab/35-tile-order/gpu_tail.sh > /dev/null ;;
    *) echo "unknown step $step (anchor, bench, tail)"; exit 2 ;;
  esac
  echo "$step: $((SECONDS - start)) s"
done
