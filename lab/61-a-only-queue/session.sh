#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): S17 (S13 by A's
# pattern alone) on the GPU: verified on the CUDA suite, compute-sanitizer's memcheck and
# racecheck, then `bench --suite blocksparse` in bf16 at 4096 with every tensor-core kernel, S17
# among them, beside cuBLAS and the packed ceiling. Logs in one archive under $OUT, the suite's
# JSON beside it.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
RESULT=$OUT OUT=/tmp/logs
mkdir -p $OUT
T=$BIN/tileskip
timeout 100 "$T" verify --backend cuda --kernel wgmma-queue-a-64 >"$OUT/verify.log" 2>&1
echo "verify rc=$?"; tail -3 "$OUT/verify.log"
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$T" bench --backend cuda --dtype bf16 --kernel wgmma-queue-a-64 \
    --m 300 --n 520 --k 1000 --generator-a blocks --block-a 64 --density-a 0.4 --generator-b uniform --density-b 1 --warmup 0 --repeat 1 \
    >"$OUT/sanitize-$tool.log" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize-$tool.log"
done
timeout 420 "$T" bench --suite blocksparse --format json --out "$RESULT/blocksparse.json" >"$OUT/blocksparse.log" 2>&1
echo "blocksparse rc=$?"
grep -E "^(A |  )" "$OUT/blocksparse.log" | head -5
tar -C "$OUT" -czf "$RESULT/logs.tgz" .
