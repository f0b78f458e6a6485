#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md). JSON and logs
# under $OUT.
#   session.sh check   S16 (compact-64) through the verify suite on CUDA and Vulkan, and under
#                      compute-sanitizer's memcheck and racecheck; then tileskip.nn.SparseMLP: the
#                      PyTorch tests (bench/gpu_python.sh) and its LLaMA-shaped block against the
#                      dense one and its packed ceiling (bench/torch_sparse_mlp.py)
#   session.sh suite   the activations suite in fp32 on CUDA and Vulkan: S16 and its twin beside
#                      cuBLAS SGEMM, K12 (its own loop's dense kernel) and the tile-skipping kernels
#                      (at 4096 it outlasts one call of the GPU machine: 10 min were not enough)
#   session.sh again   SparseMLP in fp32 on S16; S16's GLSL twin under tile variants (bench/vulkan_tune.sh)
#   session.sh backward  after the operator's backward rule for compaction kernels: the package's
#                      tests and SparseMLP in fp32 and bf16 again
#   session.sh direct  the same suite at 2048, then the LLaMA-2-7B down projection at full size
#                      (4096 tokens x 11008 -> 4096, exponents 2 and 2.5, as generated and with K in
#                      firing order by bench --reorder): S16, K12 and cuBLAS on both backends, and
#                      cuBLAS on the live columns packed (K' from inspect's loaded fraction for S16)
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
timed() {  # timed NAME COMMAND...: COMMAND's output in $OUT/NAME.log, a summary line here
  local name=$1 start=$SECONDS
  shift
  "$@" >"$OUT/$name.log" 2>&1
  echo "[$name] rc=$? $((SECONDS - start)) s"
  tail -n 6 "$OUT/$name.log"
}
case ${1:-check} in
  check)
    timed verify-cuda "$T" verify --backend cuda --kernel compact-64,hoisted
    timed verify-vulkan env TILESKIP_VALIDATION=1 "$T" verify --backend vulkan --kernel compact-64,hoisted
    "$T" gen --generator neurons --rows 1000 --cols 3000 --density 0.1 --skew 2 --operand A --out /tmp/h.npy >/dev/null
    "$T" gen --generator uniform --rows 3000 --cols 520 --density 1 --operand B --out /tmp/w.npy >/dev/null
    for tool in memcheck racecheck; do
      timed "sanitize-$tool" compute-sanitizer --tool $tool --error-exitcode 9 "$T" run --a /tmp/h.npy --b /tmp/w.npy \
        --out /tmp/c.npy --backend cuda --kernel compact-64
    done
    # The package's CUDA module is the one in .carry/bin (carried once: the tree's 64 MiB).
    [ -f .carry/python/tileskip/libtileskip_cuda.so ] || cp .carry/bin/libtileskip_cuda.so .carry/python/tileskip/
    timed python-gpu bash bench/gpu_python.sh
    cp "$OUT/python-gpu.log" "$OUT/python-gpu-tests.log" 2>/dev/null
    timed torch-sparse-mlp env PYTHONPATH=/tmp/tileskip-python python3 bench/torch_sparse_mlp.py "$OUT/torch-sparse-mlp-bf16.json"
    ;;
  suite)
    timed activations-fp32 "$T" bench --suite activations --dtype fp32 --format json --out "$OUT/activations-fp32.json"
    ;;
  again)
    # SparseMLP in fp32 on S16 (after the package's tests, which also set it up for this Python);
    # S16's GLSL twin under tile variants, with the driver's registers.
    [ -f .carry/python/tileskip/libtileskip_cuda.so ] || cp .carry/bin/libtileskip_cuda.so .carry/python/tileskip/
    timed python-gpu bash bench/gpu_python.sh
    timed torch-sparse-mlp-fp32 env PYTHONPATH=/tmp/tileskip-python python3 bench/torch_sparse_mlp.py \
      "$OUT/torch-sparse-mlp-fp32.json" compact-64 fp32
    timed vulkan-tune-hoisted bash bench/vulkan_tune.sh hoisted 2048 -
    timed vulkan-tune-compact bash bench/vulkan_tune.sh compact-64 2048 - fma=1 64x128x8/64x64/8x4/64 64x256x8/64x64/8x4/128,prefetch=0
    ;;
  backward)
    # After the backward rule (a compaction kernel's dA as torch's product): the package's tests
    # and SparseMLP in both types again.
    [ -f .carry/python/tileskip/libtileskip_cuda.so ] || cp .carry/bin/libtileskip_cuda.so .carry/python/tileskip/
    timed python-gpu bash bench/gpu_python.sh
    timed torch-sparse-mlp-fp32 env PYTHONPATH=/tmp/tileskip-python python3 bench/torch_sparse_mlp.py \
      "$OUT/torch-sparse-mlp-fp32.json" compact-64 fp32
    timed torch-sparse-mlp-bf16 env PYTHONPATH=/tmp/tileskip-python python3 bench/torch_sparse_mlp.py \
      "$OUT/torch-sparse-mlp-bf16.json"
    ;;
  direct)
    timed activations-fp32-2048 timeout 280 "$T" bench --suite activations --dtype fp32 --size 2048 --format json \
      --out "$OUT/activations-fp32-2048.json"
    "$T" gen --generator uniform --rows 11008 --cols 4096 --density 1 --operand B --out /tmp/b.npy >/dev/null
    for skew in 2 2.5; do
      "$T" gen --generator neurons --rows 4096 --cols 11008 --density 0.1 --skew $skew --operand A --out /tmp/a.npy >/dev/null
      for flag in "" --reorder; do
        name=llama-$skew${flag:+-sorted}
        timed "$name" "$T" bench --backend all --no-baseline --kernel compact-64,hoisted,cublas $flag --a /tmp/a.npy --b /tmp/b.npy \
          --format json --out "$OUT/$name.json"
      done
      "$T" inspect --a /tmp/a.npy --b /tmp/b.npy --backend cuda --format json >"$OUT/inspect-$skew.json"
      packed=$(python3 -c "import json, sys; k = [k for k in json.load(open(sys.argv[1]))['kernels'] if k['kernel'] == 'compact-64'][0]; \
print(max(8, round(11008 * k['loaded_fraction'] / 8) * 8))" "$OUT/inspect-$skew.json")
      timed "ceiling-$skew" "$T" bench --backend cuda --kernel cublas --m 4096 --n 4096 --k "$packed" --generator uniform \
        --density-a 1 --density-b 1 --format json --out "$OUT/ceiling-$skew.json"
    done
    ;;
esac
