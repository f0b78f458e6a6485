#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md), in two calls:
#   session.sh check   S12 and S13 verified in both 16-bit types, under compute-sanitizer on the quick
#                      suite (the order kernel included), and Nsight Compute's SM-active cycles and
#                      durations at 128-blocks A 0.25 for this build and the build before it
#   session.sh suites  the bf16 blocksparse suite with this build, then with the build before it
#   session.sh order   Nsight Compute's duration of the order kernel itself, at 128-blocks A 0.25
#                      and at 64-blocks A & B 0.25 (the most tiles of uneven length)
# The build before the longest-first order is carried in .carry/old (its binary and CUDA module).
# Logs under $OUT.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
OLD=.carry/old/tileskip
KERNELS="wgmma-queue-wide-64x64 wgmma-queue-joint-64x64"
case "${1:-}" in
  check)
    "$T" verify --backend cuda --kernel wgmma-queue-wide-64x64,wgmma-queue-joint-64x64 >"$OUT/verify.log" 2>&1
    echo "verify rc=$?"
    for K in $KERNELS; do
      for tool in racecheck memcheck; do
        compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --quick --kernel $K --dtype bf16 \
          >"$OUT/sanitize-$tool-$K.log" 2>&1
        echo "$K $tool rc=$?"
      done
    done
    P="--backend cuda --size 4096 --dtype bf16 --generator-a blocks --generator-b uniform --block 128 --density-a 0.25 --density-b 1"
    M=sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_elapsed.avg,gpu__time_duration.sum,lts__t_sectors.sum
    for build in new old; do
      B=$T; [ $build = old ] && B=$OLD
      for K in wgmma-queue-wide-64x64 wgmma-queue-joint-64x64; do
        timeout 120 ncu --kernel-name regex:'s12|orderTiles' --launch-skip 4 --launch-count 2 --metrics $M \
          "$B" bench $P --kernel $K >"$OUT/ncu-$build-$K.txt" 2>&1
        echo "ncu $build $K rc=$?"
      done
    done
    ;;
  suites)
    "$T" bench --suite blocksparse --format json --out "$OUT/blocksparse-new.json" >"$OUT/blocksparse-new.log" 2>&1
    echo "blocksparse new rc=$?"
    "$OLD" bench --suite blocksparse --format json --out "$OUT/blocksparse-old.json" >"$OUT/blocksparse-old.log" 2>&1
    echo "blocksparse old rc=$?"
    ;;
  order)
    for case in "--generator-b uniform --block 128 --density-a 0.25 --density-b 1" \
                "--generator-b blocks --block 64 --density-a 0.25 --density-b 0.25"; do
      P="--backend cuda --size 4096 --dtype bf16 --generator-a blocks $case"
      for K in $KERNELS; do
        timeout 60 ncu --kernel-name regex:orderTiles --launch-count 3 --metrics gpu__time_duration.sum \
          "$T" bench $P --kernel $K >>"$OUT/ncu-order.txt" 2>&1
        echo "ncu order $K $case rc=$?"
      done
    done
    ;;
  *) echo "usage: session.sh check|suites|order" >&2; exit 2 ;;
esac
