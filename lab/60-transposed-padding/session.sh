#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): the compaction
# kernels with A transposed's rows padded to whole 16-byte copies (this build, .carry/bin) against
# the build before the padding (.carry/old), at token counts that are and are not multiples of 8,
# beside cuBLAS; then the verify suite of the three compaction kernels, the fused layer at an odd
# token count, and compute-sanitizer's memcheck over S15 and S16 where the padding is read.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
# The logs go into one archive under $OUT (few files come back).
RESULT=$OUT OUT=/tmp/logs
mkdir -p $OUT
NEW=$BIN/tileskip OLD=.carry/old/tileskip
ops="--n 4096 --k 4096 --generator-a neurons --density-a 0.1 --generator-b uniform --density-b 1 --repeat 20"
for m in 4096 4095 1797; do
  for build in new old; do
    T=$NEW; [ $build = old ] && T=$OLD
    echo "== M $m, $build"
    timeout 120 "$T" bench --backend cuda --dtype bf16 --kernel compact-wgmma-128,compact-mma-64,cublas --m $m $ops \
      >"$OUT/bench-$m-bf16-$build.log" 2>&1
    grep -E "^cuda " "$OUT/bench-$m-bf16-$build.log"
    timeout 120 "$T" bench --backend cuda --kernel compact-64,cublas --m $m $ops >"$OUT/bench-$m-fp32-$build.log" 2>&1
    grep -E "^cuda " "$OUT/bench-$m-fp32-$build.log"
  done
done
echo "== verify"
timeout 200 "$NEW" verify --backend cuda --kernel compact-mma-64,compact-wgmma-128,compact-64 >"$OUT/verify.log" 2>&1
echo "rc=$?"; tail -4 "$OUT/verify.log"
echo "== fused layer, 4095 tokens"
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(7)
x = rng.standard_normal((4095, 1024)).astype(np.float32)
w1 = (rng.standard_normal((1024, 2816)) * 0.05).astype(np.float32)
w1[:, ::3] -= 0.2  # a third of the neurons mostly off
w2 = rng.standard_normal((2816, 1024)).astype(np.float32)
for name, m in (("x", x), ("w1", w1), ("w2", w2)):
    np.save(f"/tmp/{name}.npy", m)
PY
timeout 120 "$NEW" mlp --backend cuda --dtype bf16 --first-kernel wgmma --kernel compact-wgmma-128 --x /tmp/x.npy --w1 /tmp/w1.npy \
  --w2 /tmp/w2.npy --out /tmp/y.npy --compare cublas --repeat 10 >"$OUT/mlp-4095.log" 2>&1
echo "rc=$?"; tail -6 "$OUT/mlp-4095.log"
echo "== memcheck"
for k in compact-wgmma-128:bf16 compact-64:fp32 compact-mma-64:fp16; do
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$NEW" bench --backend cuda --kernel ${k%%:*} --dtype ${k##*:} \
    --m 203 --n 136 --k 1000 --generator-a neurons --density-a 0.2 --generator-b uniform --density-b 1 --warmup 0 --repeat 1 \
    >"$OUT/memcheck-${k%%:*}.log" 2>&1
  echo "$k rc=$?"; grep -E "ERROR SUMMARY" "$OUT/memcheck-${k%%:*}.log"
done
tar -C "$OUT" -czf "$RESULT/logs.tgz" .
