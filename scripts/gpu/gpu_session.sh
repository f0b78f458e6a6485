#!/usr/bin/env bash
# Runs on the lent GPU machine (scripts/gpu/README.md): unpacks the Vulkan loader carried in
# .gl/, then runs the steps named on the command line against the binaries carried in .carry/bin,
# writing every log under $OUT. Steps: env, tests, verify, bench, sanitize, headline, blocksparse,
# sweep.
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
    sweep) step sweep "$BIN/tileskip" bench --suite sweep --out "$OUT/sweep.csv" ;;
    vulkan-tests) step vulkan-tests env TILESKIP_VALIDATION=1 TILESKIP_REQUIRE_BACKENDS=vulkan "$BIN/tileskip_tests" --gtest_brief=1 --gtest_filter='*vulkan*:*Vulkan*' ;;
    cuda-tests) step cuda-tests env TILESKIP_REQUIRE_BACKENDS=cuda "$BIN/tileskip_tests" --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*:CrossBackend.*' ;;
    *) echo "unknown step $s" ;;
  esac
done
