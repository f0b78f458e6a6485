#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): the bsr kernels
# (S19 bsr-64, S20 bsr-stream-64, S21 bsr-wgmma-64) verified on the GPU in every dtype they take and sanitized, the
# device's copy bandwidth, then the weights suite: LLaMA-shaped 64-block weights at 0.25 and 0.1
# times 1 to 4096 tokens in bf16, and a few fp32 cases with the Vulkan twins beside the CUDA ones.
# Logs in one archive under $OUT, the suites' records beside it.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
RESULT=$OUT OUT=/tmp/logs
mkdir -p $OUT
T=$BIN/tileskip
step=${1:-all}  # all, bf16 (verify, sanitize and the bf16 suite), fp32 (the fp32 suite) or torch (the Python
                # tests on CUDA, torch's BSR on the bf16 suite's weights, the packed layer's training step)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
"$T" list >"$OUT/list.log" 2>&1; grep -E "^(cuda|vulkan)" "$OUT/list.log" | head -4
if [ "$step" != fp32 ]; then
for b in cuda vulkan; do
  kernels=bsr-64,bsr-stream-64; [ $b = cuda ] && kernels=$kernels,bsr-wgmma-64
  timeout 100 "$T" verify --backend $b --kernel $kernels >"$OUT/verify-$b.log" 2>&1
  echo "verify $b rc=$?"; tail -4 "$OUT/verify-$b.log"
done
for tool in memcheck racecheck; do
  for dtype in fp32 bf16; do
    kernels=bsr-stream-64,bsr-wgmma-64; [ $dtype = fp32 ] && kernels=bsr-stream-64,bsr-64
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$T" bench --backend cuda --dtype $dtype --kernel $kernels \
      --m 330 --n 40 --k 1000 --generator-a blocks --block-a 64 --density-a 0.4 --density-b 1 --warmup 0 --repeat 1 \
      >"$OUT/sanitize-$tool-$dtype.log" 2>&1
    echo "$tool $dtype rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|wrong|FAIL" "$OUT/sanitize-$tool-$dtype.log" | head -3
  done
done
"$T" bench --backend cuda --dtype bf16 --m 11008 --k 4096 --n 1 --generator-a blocks --block-a 64 --density-a 0.25 --density-b 1 \
  --kernel bsr-stream-64,cublas --repeat 50 >"$OUT/decode-one.log" 2>&1
echo "decode one rc=$?"; grep -E "^cuda" "$OUT/decode-one.log"
"$T" bench --backend cuda --dtype bf16 --m 4096 --k 4096 --n 4096 --generator-a blocks --block-a 64 --density-a 0.25 --density-b 1 \
  --kernel bsr-wgmma-64,wgmma-queue-a-64,cublas --repeat 20 >"$OUT/prefill-one.log" 2>&1
echo "prefill one rc=$?"; grep -E "^cuda" "$OUT/prefill-one.log"
fi
if [ "$step" = all ] || [ "$step" = bf16 ]; then
timeout 330 "$T" bench --suite weights --backend cuda --dtype bf16 --blocks 64 --densities 0.25,0.1 --repeat 20 \
  --format json --out "$RESULT/weights-bf16.json" >"$OUT/weights-bf16.log" 2>&1
echo "weights bf16 rc=$?"; grep -E "tokens: kept|bsr-|cublas  |auto" "$OUT/weights-bf16.log" | head -90
fi
if [ "$step" = all ] || [ "$step" = fp32 ]; then
timeout 150 "$T" bench --suite weights --dtype fp32 --blocks 64 --densities 0.25 --tokens 1,16,4096 --repeat 10 \
  --format json --out "$RESULT/weights-fp32.json" >"$OUT/weights-fp32.log" 2>&1
echo "weights fp32 rc=$?"; grep -E "tokens: kept|bsr|cublas  " "$OUT/weights-fp32.log" | head -60
fi
if [ "$step" = all ] || [ "$step" = torch ]; then
timeout 200 bash bench/gpu_python.sh >"$OUT/gpu-python.out" 2>&1
echo "python tests rc=$?"; grep -E "passed|failed" "$OUT/python-gpu.log" | tail -2
weights=$RESULT/weights-bf16.json
if [ ! -f "$weights" ]; then  # a torch-only call: a small suite of its own to compare on
  timeout 150 "$T" bench --suite weights --backend cuda --dtype bf16 --blocks 64 --densities 0.25 --tokens 1,16,4096 \
    --repeat 10 --format json --out "$weights" >"$OUT/weights-bf16.log" 2>&1
fi
PYTHONPATH=/tmp/tileskip-python timeout 200 python3 bench/torch_bsr_weights.py "$weights" "$RESULT/torch-bsr-weights.json" \
  >"$OUT/torch-bsr-weights.log" 2>&1
echo "torch bsr rc=$?"; tail -20 "$OUT/torch-bsr-weights.log"
PYTHONPATH=/tmp/tileskip-python timeout 150 python3 bench/torch_mlp_step.py "$RESULT/torch-mlp-bf16.json" torch bf16 \
  >"$OUT/step-torch.log" 2>&1
echo "packed layer step rc=$?"; tail -4 "$OUT/step-torch.log"
fi
tar -C "$OUT" -czf "$RESULT/logs-$step.tgz" .
