#!/usr/bin/env bash
# Runs on the lent GPU machine (scripts/gpu/gpu_setup.sh's set-up): the runs the speed model of
# core/measure/speed_model.hpp is fitted from (bench/calibrate_model.py) and that check `--kernel auto`:
# for each backend, every kernel that auto may pick on the sparsity users have (unstructured,
# ReLU, 2:4) and on block-aligned zeros of several widths, plus the auto row itself. One JSON
# per problem under $OUT/calibrate/, a summary line each on stdout.
#   bench/gpu_calibrate.sh [SIZE] [BACKENDS]        (default 4096, "cuda vulkan")
set -u
source "$(dirname "$0")/../scripts/gpu/gpu_setup.sh"
size=${1:-4096}
backends=${2:-cuda vulkan}
mkdir -p "$OUT/calibrate"
kernels=auto,vectorized,warptile,pipelined,hoisted,a-row,a-warp,b-group8,b-warp,joint-64x32,joint-32x32,joint-8x32,warp-joint-64x64,warp-joint-32x32
problems=(
  "dense|--generator uniform --density-a 1 --density-b 1"
  "uniform-a0.5|--generator uniform --density-a 0.5 --density-b 1"
  "pruned-b0.1|--generator uniform --density-a 1 --density-b 0.1"
  "relu-a0.1|--generator-a relu --generator-b uniform --density-a 0.1 --density-b 1"
  "nm-0.5|--generator nm --density-a 0.5 --density-b 0.5"
  "blocks32-0.5|--generator blocks --block 32 --density-a 0.5 --density-b 0.5"
  "blocks64-0.5|--generator blocks --block 64 --density-a 0.5 --density-b 0.5"
  "blocks128-0.5|--generator blocks --block 128 --density-a 0.5 --density-b 0.5"
  "blocks64-0.25|--generator blocks --block 64 --density-a 0.25 --density-b 0.25"
  "blocks128-0.25|--generator blocks --block 128 --density-a 0.25 --density-b 0.25"
  "blocks32-0.25|--generator blocks --block 32 --density-a 0.25 --density-b 0.25"
  "segments32-0.5|--generator segments --block 32 --density-a 0.5 --density-b 0.5"
  "segments128-0.25|--generator segments --block 128 --density-a 0.25 --density-b 0.25"
  "blocks64-0.1|--generator blocks --block 64 --density-a 0.1 --density-b 0.9"
)
for backend in $backends; do
  for entry in "${problems[@]}"; do
    name=${entry%%|*}
    flags=${entry#*|}
    start=$SECONDS
    # shellcheck disable=SC2086
    "$BIN/tileskip" bench --backend "$backend" --kernel "$kernels" --size "$size" $flags --no-baseline \
      --format json --out "$OUT/calibrate/$backend-$name.json" >"$OUT/calibrate/$backend-$name.log" 2>&1
    rc=$?
    echo "[$backend $name] rc=$rc $((SECONDS - start))s $(grep -m1 '^auto' "$OUT/calibrate/$backend-$name.log")"
  done
done
# At most eight files come back from a GPU call: one archive of them all.
tar -C "$OUT" -czf "$OUT/calibrate.tgz" calibrate && rm -rf "$OUT/calibrate"
