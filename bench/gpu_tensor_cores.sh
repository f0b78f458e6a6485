#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl, made by scripts/gpu/prepare_carry.sh, and
# .carry/tune/dense_variants from lab/tools/dense_variants/run_dense_variants.sh with BUILD_ONLY=1): the
# checks and timings of the tensor-core kernels (K13 mma, S10 mma-joint-64x32) in both backends,
# with cuBLAS in the same precision and, for S10, Triton BSR through torch.sparse on the same
# operands (bench/triton_bsr.py), plus the whole verify suite of both backends. Logs land in $OUT as one archive
# (tensor-cores.tgz: the device tool brings back 8 files at most); a line per step on stdout.
#   bench/gpu_tensor_cores.sh [cuda] [vulkan] [tune] [s10] [stalls] [k14] [s11] [tf32]   (default: all
#   but stalls, which needs the operands s10 writes, and k14, s11 and tf32, which need a Hopper GPU)
set -u
cd "$(dirname "$0")/.."
source scripts/gpu/gpu_setup.sh
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
# S10 on block-aligned zeros: A and B of edge-64 blocks at densities 0.5 (joint 0.25) and 0.25
# (joint 0.0625), written once and read by every row, so Triton BSR sees the same operands.
s10_steps() {
  local ops=/tmp/s10-operands n=${S10_SIZE:-4096}
  mkdir -p $ops
  TAIL=12 step verify-cuda-s10 "$T" verify --backend cuda --kernel mma-joint-64x32,mma --format table
  for tool in memcheck racecheck synccheck; do
    TAIL=3 step "sanitize-s10-$tool" compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --kernel mma-joint-64x32 --quick
  done
  TAIL=8 step verify-vulkan-s10 env TILESKIP_VALIDATION=1 "$T" verify --backend vulkan --kernel mma-joint-64x32
  for d in 0.5 0.25; do
    "$T" gen --generator blocks --block 64 --operand A --rows $n --cols $n --density $d --seed 1 --out $ops/a-$d.npy >/dev/null
    "$T" gen --generator blocks --block 64 --operand B --rows $n --cols $n --density $d --seed 2 --out $ops/b-$d.npy >/dev/null
    for dt in bf16 fp16; do
      TAIL=6 step "bench-s10-cuda-$dt-$d" "$T" bench --backend cuda --dtype $dt --kernel mma-joint-64x32,mma,cublas \
        --a $ops/a-$d.npy --b $ops/b-$d.npy --repeat 20 --format json --out "$OUT/bench-s10-cuda-$dt-$d.json"
    done
    TAIL=6 step "bench-s10-vulkan-fp16-$d" "$T" bench --backend vulkan --dtype fp16 --kernel mma-joint-64x32,mma \
      --a $ops/a-$d.npy --b $ops/b-$d.npy --repeat 20 --format json --out "$OUT/bench-s10-vulkan-fp16-$d.json"
    TAIL=30 step "triton-bsr-bf16-$d" python3 bench/triton_bsr.py $ops/a-$d.npy $ops/b-$d.npy --dtype bf16 --block 64
  done
  # Where S10's time goes beside K13's on the joint-0.25 operands: one launch of each under ncu.
  for k in mma-joint-64x32:mmaJoint mma:mmaDense; do
    LIMIT=240 TAIL=60 step "ncu-${k%%:*}" ncu --launch-skip 2 --launch-count 1 -k regex:"${k##*:}" --section SpeedOfLight \
      --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats \
      "$T" bench --backend cuda --dtype bf16 --kernel "${k%%:*}" --no-baseline --a $ops/a-0.5.npy --b $ops/b-0.5.npy --warmup 1 --repeat 1
  done
}
# K14 (wgmma, Hopper only): the verify suite with K13 beside it, compute-sanitizer, timings beside
# K13 and cuBLAS from 2048 to 8192, and the backend contract (which rows each backend offers).
k14_steps() {
  TAIL=30 step verify-cuda-k14 "$T" verify --backend cuda --kernel wgmma,mma --format table
  for tool in memcheck racecheck synccheck; do
    TAIL=3 step "sanitize-k14-$tool" compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --kernel wgmma --quick
  done
  for n in 2048 4096 8192; do
    for d in bf16 fp16; do
      TAIL=4 step "bench-k14-$d-$n" "$T" bench --backend cuda --dtype $d --kernel wgmma,mma,cublas --size $n --repeat 20 \
        --format json --out "$OUT/bench-k14-$d-$n.json"
    done
  done
  TAIL=12 step tests-k14 env TILESKIP_VALIDATION=1 TILESKIP_REQUIRE_BACKENDS=cuda,vulkan "$BIN/tileskip_tests" --gtest_brief=1 \
    --gtest_filter='Compiled/BackendContract.*:VulkanDevice.AHopper*:CrossBackend.*'
}
# tf32 on the tensor cores: K13 and S10 (m16n8k8, any GPU from sm_80) and K14 (wgmma, Hopper only):
# every dtype of them through the verify suite, compute-sanitizer on tf32, timings against cuBLAS
# TF32 (fast-TF32 compute type) from 2048 to 8192 (bench's rows give the kernel alone and, in its
# preparation column, B's transpose), and S10 on s10_steps' kind of operands beside K13.
tf32_steps() {
  local ops=/tmp/s10-operands n=${S10_SIZE:-4096}
  mkdir -p $ops
  TAIL=40 step verify-cuda-tf32-all "$T" verify --backend cuda --kernel mma,mma-joint-64x32,wgmma --format table
  for k in mma mma-joint-64x32 wgmma; do
    for tool in memcheck racecheck synccheck; do
      TAIL=3 step "sanitize-tf32-$k-$tool" compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --kernel $k \
        --dtype tf32 --quick
    done
  done
  for size in 2048 4096 8192; do
    TAIL=5 step "bench-tf32-$size" "$T" bench --backend cuda --dtype tf32 --kernel wgmma,mma,cublas --size $size --repeat 20 \
      --format json --out "$OUT/bench-tf32-$size.json"
  done
  for d in 0.5 0.25; do
    "$T" gen --generator blocks --block 64 --operand A --rows $n --cols $n --density $d --seed 1 --out $ops/a-$d.npy >/dev/null
    "$T" gen --generator blocks --block 64 --operand B --rows $n --cols $n --density $d --seed 2 --out $ops/b-$d.npy >/dev/null
    TAIL=6 step "bench-s10-tf32-$d" "$T" bench --backend cuda --dtype tf32 --kernel mma-joint-64x32,mma,wgmma,cublas \
      --a $ops/a-$d.npy --b $ops/b-$d.npy --repeat 20 --format json --out "$OUT/bench-s10-tf32-$d.json"
  done
}
# S11 (wgmma-joint-64x64, Hopper only) on s10_steps' kind of operands, beside K14, S10 and cuBLAS bf16,
# with Triton BSR on the same files; its verify suite and compute-sanitizer first.
s11_steps() {
  local ops=/tmp/s10-operands n=${S10_SIZE:-4096}
  mkdir -p $ops
  TAIL=12 step verify-cuda-s11 "$T" verify --backend cuda --kernel wgmma-joint-64x64 --format table
  for tool in memcheck racecheck synccheck; do
    TAIL=3 step "sanitize-s11-$tool" compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --kernel wgmma-joint-64x64 --quick
  done
  for d in 0.5 0.25; do
    "$T" gen --generator blocks --block 64 --operand A --rows $n --cols $n --density $d --seed 1 --out $ops/a-$d.npy >/dev/null
    "$T" gen --generator blocks --block 64 --operand B --rows $n --cols $n --density $d --seed 2 --out $ops/b-$d.npy >/dev/null
    TAIL=7 step "bench-s11-cuda-bf16-$d" "$T" bench --backend cuda --dtype bf16 --kernel wgmma-joint-64x64,wgmma,mma-joint-64x32,cublas \
      --a $ops/a-$d.npy --b $ops/b-$d.npy --repeat 20 --format json --out "$OUT/bench-s11-cuda-bf16-$d.json"
    TAIL=30 step "triton-bsr-bf16-s11-$d" python3 bench/triton_bsr.py $ops/a-$d.npy $ops/b-$d.npy --dtype bf16 --block 64
  done
}
# Where S10's and K13's warps wait, per SASS instruction (lab/tools/ncu_stall_sources.py reads
# the CSVs), on the 0.5/0.5 operands that s10_steps wrote.
stalls_steps() {
  local ops=/tmp/s10-operands reasons='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
  for k in mma-joint-64x32:mmaJoint mma:mmaDense; do
    local id=${k%%:*}
    ncu --clock-control none --section WarpStateStats --section SourceCounters --section SchedulerStats --metrics "$reasons" \
      --kernel-name regex:"${k##*:}" --launch-skip 2 --launch-count 1 -o "/tmp/stall-$id" \
      "$T" bench --backend cuda --dtype bf16 --kernel "$id" --no-baseline --a $ops/a-0.5.npy --b $ops/b-0.5.npy --warmup 1 \
      --repeat 1 > "$OUT/stall-$id.log" 2>&1
    echo "[stall-$id] ncu rc=$?"
    ncu -i "/tmp/stall-$id.ncu-rep" --print-details all --page details > "$OUT/stall-$id.txt" 2>&1
    ncu -i "/tmp/stall-$id.ncu-rep" --page source --print-source sass --csv > "$OUT/stall-$id.csv" 2>&1
  done
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
TAIL=40 step list "$T" list
for part in "${@:-cuda vulkan tune s10}"; do
  for p in $part; do "${p}_steps"; done
done
tar -C "$OUT" -czf /tmp/tensor-cores.tgz . && rm -f "$OUT"/* && mv /tmp/tensor-cores.tgz "$OUT/"
