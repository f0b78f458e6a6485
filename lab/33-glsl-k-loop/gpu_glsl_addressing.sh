#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): the GLSL K loops of lab/33-glsl-k-loop
# (A and B read without readonly; fragment reads and stage stores from per-stage entries; K12's loop
# and the list loop turned by one depth) against the shaders before them, in one process per kernel
# and problem: .carry/vulkan_variants/before_<stem>.spv, compiled here from the shaders before the
# change (`git archive BEFORE shaders`, then glslangValidator --target-env vulkan1.1), run by
# tileskip_vulkan_probe in place of the embedded shader with the catalogue's constants, C compared
# with it. First `tileskip verify` on every backend (unless SKIP_VERIFY is set); then each K12
# build once more into a driver disk cache of its own, brought back as $OUT/glcache.tgz for
# lab/tools/nv_cache_sass.py. Writes $OUT/verify.log and $OUT/probe.txt.
#   [SKIP_VERIFY=1] [ROUNDS=3] [PROBLEMS="uniform 32 1|blocks 128 0.25"] lab/33-glsl-k-loop/gpu_glsl_addressing.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>&1
if [ -z "${SKIP_VERIFY:-}" ]; then
  "$BIN/tileskip" verify > "$OUT/verify.log" 2>&1
  echo "verify rc=$? $(grep -E '^totals' "$OUT/verify.log")"
fi
dir=.carry/vulkan_variants
probe() {  # kernel size generator granularity density variant
  "$BIN/tileskip_vulkan_probe" --kernel "$1" --dtype fp32 --size "$2" --generator "$3" --granularity "$4" \
    --density-a "$5" --density-b "$5" --repeat 15 --rounds "${ROUNDS:-3}" --spirv "$dir" catalogue "$6" 2>&1 |
    tee -a "$OUT/probe.txt" | grep -E '^(catalogue|before)' | sed "s/^/$1 $2 $3 $4 $5: /"
}
probe hoisted 4096 uniform 32 1 before_k12_hoisted
probe hoisted 8192 uniform 32 1 before_k12_hoisted
IFS='|' read -r -a problems <<< "${PROBLEMS:-uniform 32 1|blocks 128 0.25|blocks 128 0.5|segments 32 0.5}"
for run in "a-warp s02_a_warp" "joint-64x32 s05_joint_64x32" "joint-32x32 s06_joint_32x32" "joint-8x32 s07_joint_8x32" \
           "warp-joint-64x64 s08_warp_joint_64x64"; do
  set -- $run
  for problem in "${problems[@]}"; do
    # shellcheck disable=SC2086  # three words
    probe "$1" 4096 $problem "before_$2"
  done
done
for name in catalogue before_k12_hoisted; do
  mkdir -p "/tmp/glcache/$name"  # the driver does not create it
  __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=/tmp/glcache/$name __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
    "$BIN/tileskip_vulkan_probe" --kernel hoisted --dtype fp32 --size 256 --warmup 0 --repeat 1 \
    --spirv "$dir" "$name" > /dev/null 2>&1 || echo "cache run of $name: exit $?"
done
tar -C /tmp -czf "$OUT/glcache.tgz" glcache
