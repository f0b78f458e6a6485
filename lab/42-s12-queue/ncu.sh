#!/usr/bin/env bash
# On the GPU machine: Nsight Compute on S11 and S12 at 64-blocks 0.25 / 0.25 and 128-blocks
# 0.25 / 0.25 (bf16, 4096^3), the launch after verification. Reports under $OUT.
set -u
source scripts/gpu/gpu_setup.sh
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats"
for block in 64 128; do
  for k in "s11:wgmma-joint-64x64" "s12:wgmma-queue-joint-64x64"; do
    stem=${k%%:*} id=${k##*:}
    ncu --clock-control none $sections --kernel-name "regex:${stem}_" --launch-skip 1 --launch-count 1 \
      "$BIN/tileskip" bench --backend cuda --kernel "$id" --dtype bf16 --generator blocks --block $block \
      --density-a 0.25 --density-b 0.25 --size 4096 > "$OUT/ncu-$stem-$block.txt" 2>&1
    echo "ncu $stem $block: rc=$?"
  done
done
