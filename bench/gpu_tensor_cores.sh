#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl, made by bench/prepare_carry.sh, and
# .carry/tune/dense_variants from bench/tune/run_dense_variants.sh with BUILD_ONLY=1): issue 13's
# checks and timings of the tensor-core kernel K13 in both backends, with cuBLAS in the same
# precision, plus the whole verify suite of both backends. Logs land in $OUT as one archive
# (tensor-cores.tgz: the device tool brings back 8 files at most); a line per step on stdout.
#   bench/gpu_tensor_cores.sh [cuda] [vulkan] [tune]    (default: all three)
set -u
cd "$(dirname "$0")/.."
source bench/gpu_setup.sh
step() {
  local name=$1
  shift
  local start=$SECONDS
  timeout "${LIMIT:-300}" "$@" >"$OUT/$name.log" 2>&1
  echo "[$name] rc=$? $((SECONDS - start))s"
  tail -n "${TAIL:-6}" "$OUT/$name.log" | sed "s/^/  [$name] /"
}
T=$BIN/tileskip
cuda_steps() {
  TAIL=30 step verify-cuda "$T" verify --backend cuda --format table
  for tool in memcheck racecheck synccheck; do
    TAIL=3 step "sanitize-$tool" compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --kernel mma --quick
  done
  for n in 4096 8192; do
    for d in bf16 fp16; do
      TAIL=3 step "bench-cuda-$d-$n" "$T" bench --backend cuda --dtype $d --kernel mma,cublas --size $n --repeat 20 \
        --format json --out "$OUT/bench-cuda-$d-$n.json"
    done
  done
  TAIL=12 step tests-cuda env TILESKIP_REQUIRE_BACKENDS=cuda "$BIN/tileskip_tests" --gtest_brief=1 \
    --gtest_filter='*Cuda*:Inputs.*:LaneMap.Cuda*'
}
vulkan_steps() {
  echo "Vulkan ICD: $VK_DRIVER_FILES"
  TAIL=8 step verify-vulkan-mma env TILESKIP_VALIDATION=1 "$T" verify --backend vulkan --kernel mma
  for n in 4096 8192; do
    TAIL=4 step "bench-vulkan-fp16-$n" "$T" bench --backend vulkan --dtype fp16 --kernel mma --size $n --repeat 20 \
      --format json --out "$OUT/bench-vulkan-fp16-$n.json"
  done
  TAIL=12 step tests-vulkan env TILESKIP_VALIDATION=1 TILESKIP_REQUIRE_BACKENDS=vulkan "$BIN/tileskip_tests" --gtest_brief=1 \
    --gtest_filter='VulkanDevice.TheTensor*:Compiled/BackendContract.*:Vulkan*Limits*'
  LIMIT=400 TAIL=30 step verify-vulkan "$T" verify --backend vulkan --format table
}
tune_steps() {
  [ -x .carry/tune/dense_variants ] || return 0
  TAIL=12 step dense-branchfree env NVIDIA_TF32_OVERRIDE=0 .carry/tune/dense_variants --filter branchfree --sizes 2048,4096,8192 --repeat 15
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
TAIL=40 step list "$T" list
for part in "${@:-cuda vulkan tune}"; do
  for p in $part; do "${p}_steps"; done
done
tar -C "$OUT" -czf /tmp/tensor-cores.tgz . && rm -f "$OUT"/* && mv /tmp/tensor-cores.tgz "$OUT/"
