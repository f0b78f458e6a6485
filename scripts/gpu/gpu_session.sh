#!/usr/bin/env bash
# Runs on the lent GPU machine (scripts/gpu/README.md): unpacks the Vulkan loader carried in
# .gl/, then runs the steps named on the command line against the binaries carried in .carry/bin,
# writing every log under $OUT. Steps: env, tests, verify, bench, sanitize, headline, blocksparse, activations,
# sweep, ladder.
# Each step's log is $OUT/<step>.log; a summary line per step goes to stdout.
set -u
source "$(dirname "$0")/gpu_setup.sh"

step() {  # step NAME COMMAND...: runs COMMAND with its output in $OUT/NAME.log
  local name=$1
  shift
  local start=$SECONDS
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "[$name] rc=$rc $((SECONDS - start))s: $*"
  tail -n 25 "$OUT/$name.log" | sed "s/^/  [$name] /"
  return 0
}

for s in "$@"; do
  case $s in
    env) step env bash -c "nvidia-smi; $BIN/tileskip list" ;;
    tests) step tests env TILESKIP_VALIDATION=1 TILESKIP_REQUIRE_BACKENDS=cuda,vulkan \
             bash "$(dirname "$0")/run_tests_by_suite.sh" "$BIN/tileskip_tests" 90 ;;
    verify) step verify "$BIN/tileskip" verify ;;
    bench) step bench-vulkan "$BIN/tileskip" bench --backend vulkan --kernel all --size 4096 --format json --out "$OUT/bench-vulkan.json"
           for d in 1.0 0.5 0.25; do
             step "bench-cuda-$d" "$BIN/tileskip" bench --backend cuda --kernel all --size 4096 --density-a $d --density-b $d --format json --out "$OUT/bench-cuda-$d.json"
           done ;;
    sanitize) for tool in memcheck racecheck synccheck; do
                step "sanitize-$tool" compute-sanitizer --tool $tool --error-exitcode 9 "$BIN/tileskip" verify --backend cuda
              done ;;
    headline) step headline "$BIN/tileskip" bench --suite headline --format json --out "$OUT/headline.json" ;;
    blocksparse) step blocksparse "$BIN/tileskip" bench --suite blocksparse --format json --out "$OUT/blocksparse.json" ;;
    activations) step activations "$BIN/tileskip" bench --suite activations --format json --out "$OUT/activations.json" ;;
    sweep) step sweep "$BIN/tileskip" bench --suite sweep --out "$OUT/sweep.csv" ;;
    # The viewer's recorded ladder (scripts/recorded_figures.py): Part 1's dense kernels on each
    # backend at 4096^3 in fp32 beside cuBLAS, then the tensor-core kernels beside cuBLAS in bf16
    # (CUDA) and fp16 (Vulkan's cooperative-matrix twin); whole tables (--wide) for the record.
    ladder) dense=naive,coalesced,smem,blocktile1d,blocktile2d,vectorized,warptile,pipelined,hoisted
            for b in cuda vulkan; do
              step "ladder-$b" "$BIN/tileskip" --wide bench --backend $b --size 4096 --kernel $dense --density-a 1 --density-b 1
            done
            step ladder-cuda-bf16 "$BIN/tileskip" --wide bench --backend cuda --size 4096 --dtype bf16 --kernel mma,wgmma --density-a 1 --density-b 1
            step ladder-vulkan-fp16 "$BIN/tileskip" --wide bench --backend vulkan --size 4096 --dtype fp16 --kernel mma --density-a 1 --density-b 1 ;;
    vulkan-tests) step vulkan-tests env TILESKIP_VALIDATION=1 TILESKIP_REQUIRE_BACKENDS=vulkan "$BIN/tileskip_tests" --gtest_brief=1 --gtest_filter='*vulkan*:*Vulkan*' ;;
    cuda-tests) step cuda-tests env TILESKIP_REQUIRE_BACKENDS=cuda "$BIN/tileskip_tests" --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*:CrossBackend.*' ;;
    *) echo "unknown step $s" ;;
  esac
done
