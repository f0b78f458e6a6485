#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): the tensor-core kernels' GLSL ring on two
# shared stages with C through the A stages (lab/25-vulkan-k13-driver) against the build before it
# (.carry/before/: tileskip and its CUDA module), both twins: verify in every input type, the CUDA
# sanitizers, K13 and S10 timed by both builds in one call, the probes of .carry/vulkan_variants
# (lab/tools/vulkan_variants.py) where carried, then the headline suite. Logs land in $OUT/k13.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
log=$OUT/k13 && mkdir -p "$log"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$log/device.txt" 2>&1
for t in fp16 bf16 tf32; do
  "$BIN/tileskip" verify --backend cuda --kernel mma,mma-joint-64x32 --dtype $t > "$log/verify-cuda-$t.txt" 2>&1
  echo "verify cuda $t: rc=$?"
done
TILESKIP_VALIDATION=1 "$BIN/tileskip" verify --backend vulkan --kernel mma,mma-joint-64x32 --dtype fp16 > "$log/verify-vulkan.txt" 2>&1
echo "verify vulkan fp16: rc=$?"
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$BIN/tileskip" verify --backend cuda --kernel mma --dtype bf16 --quick > "$log/sanitizer-$tool.txt" 2>&1
  echo "compute-sanitizer $tool: rc=$?"
done
for round in 1 2; do
  for build in before new; do
    bin=$BIN/tileskip; [ $build = before ] && bin=.carry/before/tileskip
    for n in 4096 8192; do
      "$bin" bench --backend all --dtype fp16 --kernel mma --size $n --repeat 20 > "$log/k13-$build-$n-r$round.txt" 2>&1
    done
    for d in 0.5 0.25; do
      "$bin" bench --backend all --dtype fp16 --kernel mma-joint-64x32,mma --generator blocks --granularity 64 \
        --density-a $d --density-b $d --repeat 20 > "$log/s10-$build-$d-r$round.txt" 2>&1
    done
  done
done
# Workgroups per SM by shared memory, and S10 by its list length (dense operands), where variants were carried.
if [ -d .carry/vulkan_variants ]; then
  "$BIN/tileskip_vulkan_probe" --kernel mma --dtype fp16 --size 4096 --repeat 5 --rounds 1 --print-c 2 --spirv .carry/vulkan_variants \
    $(cd .carry/vulkan_variants && ls k13_residency*.spv | sed 's/\.spv$//') > "$log/residency.txt" 2>&1
  TILESKIP_VULKAN_PIPELINE_STATS=1 "$BIN/tileskip_vulkan_probe" --kernel mma-joint-64x32 --dtype fp16 --size 4096 \
    catalogue catalogue@list=512 catalogue@list=256 catalogue@list=128 > "$log/s10-lists.txt" 2>&1
fi
"$BIN/tileskip" bench --suite headline --format json --out "$log/headline.json" > "$log/headline.txt" 2>&1
echo "headline: rc=$?"
tar -C "$OUT" -czf "$OUT/k13.tgz" k13 && rm -rf "$log"
