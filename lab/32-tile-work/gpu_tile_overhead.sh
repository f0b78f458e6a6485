#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): what lab/31-glsl-skip-hoisted left to
# measure, in one call (issue 17).
#  1. a fresh machine's first Vulkan compiles: every kernel at 256^3 with the driver's cache
#     empty, then again with it warm (the list loop inlined twice, b5635f8);
#  2. Vulkan K12 at its catalogue tile against 128 x 128 (the skipping kernels' block), in turns;
#  3. the GLSL list loop inlined twice against three times (.carry/vulkan_variants/three_*.spv,
#     the shaders of a67fe67) on zeros in 32-wide segments, where lists are partly whole;
#  4. Nsight Compute's warp sampling of joint-64x32 at 0.25 / 0.25 (128-wide segments) and of K12
#     on dense operands (lab/30-skip-hoisted/gpu_skip_profile.sh): where a low-density tile's time goes.
# Writes $OUT/device.txt, first-compile.log, warm-compile.log, vulkan-tune-hoisted.log,
# probe.txt and the profiles' skip-*.txt / .csv.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
for pass in first warm; do
  start=$SECONDS
  timeout 300 "$BIN/tileskip" bench --backend vulkan --kernel all --size 256 --no-baseline --repeat 1 \
    > "$OUT/$pass-compile.log" 2>&1
  echo "$pass compile: rc=$? $((SECONDS - start)) s"
done
bash bench/vulkan_tune.sh hoisted 4096 - 128x128x8/64x64/8x4/128 - 128x128x8/64x64/8x4/128
for run in "joint-64x32 three_s05_joint_64x32" "joint-8x32 three_s07_joint_8x32" "warp-joint-64x64 three_s08_warp_joint_64x64"; do
  set -- $run
  for density in 0.5 0.25; do
    "$BIN/tileskip_vulkan_probe" --kernel "$1" --dtype fp32 --size 4096 --generator segments --granularity 32 \
      --density-a "$density" --density-b "$density" --repeat 15 --rounds 2 --spirv .carry/vulkan_variants catalogue "$2" 2>&1 |
      tee -a "$OUT/probe.txt" | grep -E '^(catalogue|three)' | sed "s/^/$1 segments 32 $density: /"
  done
done
PROFILES="joint025 hoisted" bash lab/30-skip-hoisted/gpu_skip_profile.sh
