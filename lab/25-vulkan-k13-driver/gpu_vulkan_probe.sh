#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): times the Vulkan variants built into
# .carry/vulkan_variants by lab/tools/vulkan_variants.py, all in one process with
# tileskip_vulkan_probe (carried in .carry/bin by scripts/gpu/prepare_carry.sh), with the driver's
# statistics of each pipeline; then builds each variant once more into a disk cache of its own and
# brings the caches back as $OUT/glcache.tgz, for lab/tools/nv_cache_sass.py to disassemble here.
# Environment: KERNEL (mma), DTYPE (fp16), SIZES (4096), PROBE_ARGS (more of the probe's options), NAMES (the probe's NAME[@SHAPE] arguments;
# default: catalogue and every file there).
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
dir=.carry/vulkan_variants
files=$(cd "$dir" && ls ./*.spv | sed 's|^\./||; s|\.spv$||' | tr '\n' ' ')
names=${NAMES:-catalogue $files}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > "$OUT/device.txt" 2>&1
for size in ${SIZES:-4096}; do
  # shellcheck disable=SC2086  # one argument per variant
  TILESKIP_VULKAN_PIPELINE_STATS=1 "$BIN/tileskip_vulkan_probe" --kernel "${KERNEL:-mma}" --dtype "${DTYPE:-fp16}" \
    --size "$size" ${PROBE_ARGS:-} --spirv "$dir" $names 2>&1 | tee -a "$OUT/probe.txt"
done
for name in catalogue $files; do
  mkdir -p "/tmp/glcache/$name"  # the driver does not create it
  __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=/tmp/glcache/$name __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
    "$BIN/tileskip_vulkan_probe" --kernel "${KERNEL:-mma}" --dtype "${DTYPE:-fp16}" --size 256 --warmup 0 --repeat 1 \
    --spirv "$dir" "$name" > /dev/null 2>&1 || echo "cache run of $name: exit $?"
done
tar -C /tmp -czf "$OUT/glcache.tgz" glcache
