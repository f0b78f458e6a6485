#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): the CUDA
# kernels verified with the patterns of 16-bit problems built from their 16-bit copies, the
# CUDA device tests and compute-sanitizer on the pattern builders, then the blocksparse suite,
# whose prepare_ms is the patterns alone and rounding_ms the copies. Logs and JSON under $OUT.
set -u
source scripts/gpu/gpu_setup.sh
start=$SECONDS
"$BIN/tileskip" verify --backend cuda >"$OUT/verify-cuda.log" 2>&1
echo "[verify-cuda] rc=$? $((SECONDS - start))s"; tail -n 2 "$OUT/verify-cuda.log"
TILESKIP_REQUIRE_BACKENDS=cuda "$BIN/tileskip_tests" --gtest_brief=1 --gtest_filter='CudaDevice.*' >"$OUT/cuda-device-tests.log" 2>&1
echo "[cuda-device-tests] rc=$? $((SECONDS - start))s"; tail -n 3 "$OUT/cuda-device-tests.log"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$BIN/tileskip" verify --backend cuda --quick \
    --kernel mma-joint-64x32,wgmma-joint-64x64 --dtype bf16 >"$OUT/sanitize-$tool.log" 2>&1
  echo "[sanitize-$tool] rc=$? $((SECONDS - start))s"; tail -n 2 "$OUT/sanitize-$tool.log"
done
"$BIN/tileskip" bench --suite blocksparse --format json --out "$OUT/blocksparse.json" >"$OUT/blocksparse.log" 2>&1
echo "[blocksparse] rc=$? $((SECONDS - start))s"
