#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): S12 and S13
# verified in every dtype, S13 and S12 under compute-sanitizer on the quick suite, the bf16
# blocksparse suite, and Nsight Compute on both at 128-blocks A 0.25 (B dense). Logs under $OUT.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
"$T" verify --backend cuda --kernel wgmma-queue-wide-64x64,wgmma-queue-joint-64x64 >"$OUT/verify.log" 2>&1
echo "verify rc=$?"
for K in wgmma-queue-wide-64x64 wgmma-queue-joint-64x64; do
  for tool in racecheck memcheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --quick --kernel $K --dtype bf16 \
      >"$OUT/sanitize-$tool-$K.log" 2>&1
    echo "$K $tool rc=$?"
  done
done
"$T" bench --suite blocksparse --format json --out "$OUT/blocksparse.json" >"$OUT/blocksparse.log" 2>&1
echo "blocksparse rc=$?"
P="--backend cuda --size 4096 --dtype bf16 --generator-a blocks --generator-b uniform --block 128 --density-a 0.25 --density-b 1"
for K in wgmma-queue-wide-64x64 wgmma-queue-joint-64x64; do
  timeout 150 ncu --kernel-name regex:s12 --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis "$T" bench $P --kernel $K >"$OUT/ncu-$K.txt" 2>&1
  echo "ncu $K rc=$?"
done
