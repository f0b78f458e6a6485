#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): trains the L1-
# penalised ReLU MLP at five penalties (train_l1_mlp.py, on the GPU), then times the second layer's
# product on each, H (1797 images x 4096) times W2 transposed (4096 x 4096): S16, K12 and cuBLAS in
# fp32, S15, auto and cuBLAS in bf16. Logs under $OUT.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
python3 lab/59-l1-trained-relu/train_l1_mlp.py /tmp/l1 0 3e-3 1e-2 3e-2 1e-1 >"$OUT/training.log" 2>&1
cat "$OUT/training.log"
for l in 0 0.003 0.01 0.03 0.1; do
  d=/tmp/l1/l$l
  echo "== lambda $l"
  "$T" bench --backend cuda --kernel compact-64,hoisted,cublas,auto --a $d/h.npy --b $d/w.npy >"$OUT/bench-$l-fp32.log" 2>&1
  grep -E "^cuda " "$OUT/bench-$l-fp32.log"
  "$T" bench --backend cuda --dtype bf16 --kernel compact-wgmma-128,cublas,auto --a $d/h.npy --b $d/w.npy >"$OUT/bench-$l-bf16.log" 2>&1
  grep -E "^cuda " "$OUT/bench-$l-bf16.log"
done
