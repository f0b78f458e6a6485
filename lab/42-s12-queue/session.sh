#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): every CUDA kernel
# verified (S12 among them), compute-sanitizer on the two warpgroup skipping kernels, then the
# blocksparse suite (S11 and S12 beside cuBLAS and the packed ceiling). Logs and JSON under $OUT.
set -u
source scripts/gpu/gpu_setup.sh
start=$SECONDS
"$BIN/tileskip" verify --backend cuda >"$OUT/verify-cuda.log" 2>&1
echo "[verify-cuda] rc=$? $((SECONDS - start))s"; tail -n 2 "$OUT/verify-cuda.log"
for tool in memcheck racecheck racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$BIN/tileskip" verify --backend cuda --quick \
    --kernel wgmma-joint-64x64,wgmma-queue-joint-64x64 --dtype bf16 >"$OUT/sanitize-$tool.log" 2>&1
  echo "[sanitize-$tool] rc=$? $((SECONDS - start))s"; tail -n 2 "$OUT/sanitize-$tool.log"
done
"$BIN/tileskip" bench --suite blocksparse --format json --out "$OUT/blocksparse.json" >"$OUT/blocksparse.log" 2>&1
echo "[blocksparse] rc=$? $((SECONDS - start))s"; grep -E "^case|wgmma|cublas" "$OUT/blocksparse.log" | head -80
