#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): the bf16
# activations suite (each sparse case as generated and sorted by firing, the LLaMA-shaped layer in
# both orders) and the bf16 blocksparse suite, both with inspect's predicted speedup beside each
# kernel's measured one. JSON and logs under $OUT.
#   session.sh fp16   the activations suite in fp16 instead, where the Vulkan twins (cooperative
#                     matrices take fp16) run beside the CUDA kernels on the same GPU
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
if [ "${1:-}" = fp16 ]; then
  start=$(date +%s)
  "$T" bench --suite activations --dtype fp16 --format json --out "$OUT/activations-fp16.json" >"$OUT/activations-fp16.log" 2>&1
  echo "activations fp16 rc=$? $(( $(date +%s) - start )) s"
  exit 0
fi
for suite in activations blocksparse; do
  start=$(date +%s)
  "$T" bench --suite $suite --format json --out "$OUT/$suite.json" >"$OUT/$suite.log" 2>&1
  echo "$suite rc=$? $(( $(date +%s) - start )) s"
done
