#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): S18 (S12 by B's
# pattern alone) verified and sanitized, timed on a dense A times a block-sparse B (the shape of a
# sparse layer's forward, x times W transposed) beside S12, S13, cuBLAS, auto and cuBLAS on K' = K x
# B's density (the packed ceiling), then the bf16 training step of bench/torch_mlp_step.py with S12
# and with S18 in BlockSparseLinear. Logs in one archive under $OUT, the step records beside it.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
RESULT=$OUT OUT=/tmp/logs
mkdir -p $OUT
T=$BIN/tileskip
timeout 100 "$T" verify --backend cuda --kernel wgmma-queue-b-64 >"$OUT/verify.log" 2>&1
echo "verify rc=$?"; tail -1 "$OUT/verify.log"
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$T" bench --backend cuda --dtype bf16 --kernel wgmma-queue-b-64 \
    --m 300 --n 520 --k 1000 --generator-a uniform --density-a 1 --generator-b blocks --block-b 64 --density-b 0.4 --warmup 0 --repeat 1 \
    >"$OUT/sanitize-$tool.log" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize-$tool.log"
done
for block in 64 128; do
  for d in 0.5 0.25 0.1; do
    timeout 60 "$T" bench --backend cuda --dtype bf16 --size 4096 --generator-a uniform --density-a 1 --generator-b blocks --block-b $block \
      --density-b $d --kernel wgmma-queue-b-64,wgmma-queue-joint-64x64,wgmma-queue-wide-64x64,cublas,auto --repeat 20 \
      --format json --out "$OUT/bonly-$block-$d.json" >"$OUT/bonly-$block-$d.log" 2>&1
    echo "== B $block-blocks $d rc=$?"; grep -E "^cuda " "$OUT/bonly-$block-$d.log"
  done
done
for k in 2048 1024 416; do
  timeout 60 "$T" bench --backend cuda --dtype bf16 --m 4096 --n 4096 --k $k --generator uniform --density-a 1 --density-b 1 \
    --kernel cublas --repeat 20 >"$OUT/ceiling-$k.log" 2>&1
  echo "== ceiling K' $k"; grep -E "^cuda " "$OUT/ceiling-$k.log"
done
timeout 200 bash bench/gpu_python.sh >"$OUT/gpu-python.out" 2>&1
echo "python tests rc=$?"; grep -E "passed|failed" "$OUT/python-gpu.log" | tail -2
for k in wgmma-queue-joint-64x64 wgmma-queue-b-64; do
  PYTHONPATH=/tmp/tileskip-python timeout 150 python3 bench/torch_mlp_step.py "$RESULT/step-$k.json" $k bf16 >"$OUT/step-$k.log" 2>&1
  echo "== step $k rc=$?"; cat "$OUT/step-$k.log" | tail -4
done
tar -C "$OUT" -czf "$RESULT/logs.tgz" .
