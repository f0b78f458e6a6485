#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): the persistent kernels taking their tiles
# heaviest first (tile_order.cuh, bench/NOTES.md step 35) against .carry/before's index order, in
# alternating rounds, C verified by each bench: the build before, then .carry/bin with each count
# of weight levels in LEVELS (TILESKIP_TILE_ORDER_LEVELS; 1 is index order, so it times what the
# order costs). Then Nsight Compute's times of the order kernel and of joint-64x32, and the
# multiprocessors' idle tail (gpu_tail.sh's metrics) of each. Writes $OUT/order.csv, order.log,
# ncu-*.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/gpu_setup.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/order.log"
kernels=${KERNELS:-joint-64x32,joint-32x32,warp-joint-64x64,a-warp}
IFS='|' read -r -a problems <<< "${PROBLEMS:-segments 128 0.25|segments 128 0.354|segments 128 0.5|uniform 32 1}"
variants="before ${LEVELS:-1 4 16}"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in $variants; do
    build=bin; [ "$v" = before ] && build=before
    for p in "${problems[@]}"; do
      read -r generator granularity density <<< "$p"
      TILESKIP_TILE_ORDER_LEVELS=$v "./.carry/$build/tileskip" bench --backend cuda --kernel "$kernels" --size 4096 \
        --generator "$generator" --granularity "$granularity" --density-a "$density" --density-b "$density" --repeat 15 \
        --format csv --out /tmp/o.csv > /dev/null 2>> "$OUT/order.log" || echo "bench $v $p rc=$?" | tee -a "$OUT/order.log"
      sed "1!s/^/$v,$generator $granularity,$density,$round,/;1s/^/variant,problem,density,round,/" /tmp/o.csv |
        { [ -s "$OUT/order.csv" ] && tail -n +2 || cat; } >> "$OUT/order.csv"
    done
  done
done
python3 - "$OUT/order.csv" "$variants" <<'PY' | tee -a "$OUT/order.log"
import csv, sys, collections
ms = collections.defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    ms[(row["problem"], row["density"], row["kernel"], row["variant"])].append(float(row["median_ms"]))
variants = sys.argv[2].split()
print("problem density kernel " + " ".join(variants) + "  (best median ms; then / before)")
for p, d, k in sorted({key[:3] for key in ms}):
    best = [min(ms.get((p, d, k, v), [float("nan")])) for v in variants]
    print(f"{p} {d} {k} " + " ".join(f"{b:.4f}" for b in best) + "  " + " ".join(f"{b / best[0]:.3f}" for b in best[1:]))
PY
metrics=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.max
for v in $variants; do
  build=bin; [ "$v" = before ] && build=before
  TILESKIP_TILE_ORDER_LEVELS=$v ncu --clock-control none --metrics "$metrics" --kernel-name "regex:orderBlockTiles|joint64x32" \
    --launch-skip 4 --launch-count 6 "./.carry/$build/tileskip" bench --backend cuda --size 4096 --warmup 1 --repeat 3 \
    --no-baseline --kernel joint-64x32 --generator segments --granularity 128 --density-a 0.25 --density-b 0.25 \
    > "$OUT/ncu-$v.txt" 2>&1
  echo "$v: $(grep -E '^  [a-zA-Z]|gpu__time|sm__cycles' "$OUT/ncu-$v.txt" | awk '{print $1, $NF}' | tr '\n' ' ')" | tee -a "$OUT/order.log"
done
