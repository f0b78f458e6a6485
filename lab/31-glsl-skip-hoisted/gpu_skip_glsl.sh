#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): the GLSL skipping kernels on K12's list
# loop (tileskip_skip.glsl's hoistedListLoop) against their build on K11's loop, in one process
# each: .carry/vulkan_variants/before_<stem>.spv, compiled here from the shaders before the change
# (`git archive BEFORE shaders`, then glslangValidator --target-env vulkan1.1), run by
# tileskip_vulkan_probe in place of the embedded shader with the catalogue's constants, its C
# compared with the embedded shader's. First `tileskip verify` on every backend (unless
# SKIP_VERIFY is set). lab/31-glsl-skip-hoisted. Writes $OUT/verify.log and $OUT/probe.txt.
#   [SKIP_VERIFY=1] [ROUNDS=3] lab/31-glsl-skip-hoisted/gpu_skip_glsl.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>&1
if [ -z "${SKIP_VERIFY:-}" ]; then
  "$BIN/tileskip" verify > "$OUT/verify.log" 2>&1
  echo "verify rc=$? $(grep -E '^totals' "$OUT/verify.log")"
fi
dir=.carry/vulkan_variants
# kernel, the build before the change, problems: generator granularity A and B density.
runs=("joint-64x32 before_s05_joint_64x32" "warp-joint-64x64 before_s05_joint_64x32" "a-warp before_s05_joint_64x32"
      "joint-8x32 before_s07_joint_8x32")
problems=("uniform 32 1" "blocks 128 0.5" "blocks 128 0.25" "blocks 64 0.5" "segments 32 0.5")
for r in "${runs[@]}"; do
  set -- $r
  for p in "${problems[@]}"; do
    read -r generator granularity density <<< "$p"
    "$BIN/tileskip_vulkan_probe" --kernel "$1" --dtype fp32 --size 4096 --generator "$generator" \
      --granularity "$granularity" --density-a "$density" --density-b "$density" --repeat 15 --rounds "${ROUNDS:-3}" \
      --spirv "$dir" catalogue "$2" 2>&1 | tee -a "$OUT/probe.txt" | grep -E '^(catalogue|before)' | sed "s/^/$1 $p: /"
  done
done
