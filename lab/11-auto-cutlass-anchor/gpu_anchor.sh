#!/usr/bin/env bash
# On the GPU machine (device tool, carry .carry and .gl, with the anchor built into
# .carry/bin/cutlass_sgemm_anchor by build.sh): CUTLASS's SIMT SGEMM, cuBLAS and tileskip's dense
# kernels timed in one session, then one Nsight Compute profile each of CUTLASS 128x256x8,
# cuBLAS and K12 at 4096^3. Everything lands in $OUT/anchor.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
log=$OUT/anchor && mkdir -p "$log"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$log/device.txt" 2>&1
"$BIN/cutlass_sgemm_anchor" --repeat 15 > "$log/anchor.txt" 2>&1
for n in 2048 4096 8192; do
  "$BIN/tileskip" bench --backend cuda --kernel hoisted,pipelined --size "$n" --repeat 15 > "$log/tileskip-$n.txt" 2>&1
done
sections="--section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats"
# The first launch of each is its warm-up: the profile is of the second.
ncu --clock-control none $sections --launch-skip 1 --launch-count 1 \
  "$BIN/cutlass_sgemm_anchor" --only 128x256 --sizes 4096 --repeat 1 > "$log/ncu-cutlass-128x256.txt" 2>&1
ncu --clock-control none $sections --launch-skip 1 --launch-count 1 \
  "$BIN/cutlass_sgemm_anchor" --only cublas --sizes 4096 --repeat 1 > "$log/ncu-cublas.txt" 2>&1
ncu --clock-control none $sections --kernel-name regex:hoisted --launch-skip 3 --launch-count 1 \
  "$BIN/tileskip" bench --backend cuda --kernel hoisted --size 4096 --no-baseline --warmup 3 --repeat 1 > "$log/ncu-k12.txt" 2>&1
tar -C "$OUT" -czf "$OUT/anchor.tgz" anchor && rm -rf "$log"
