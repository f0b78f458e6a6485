#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): CUDA kernels of .carry/before (tileskip and
# the CUDA module of the build before a change) against .carry/bin's, in alternating rounds, C
# verified by each bench. Appends every run to $OUT/ba-cuda.csv and prints, per problem and kernel,
# the best median of each build and their ratio. Used by lab/32-tile-work/gpu_tile_work.sh (step 32) and
# for the gather of step 34.
#   [ROUNDS=2] [KERNELS=a-warp,joint-64x32,...] [PROBLEMS="segments 128 0.5|blocks 128 0.25"] \
#     lab/tools/gpu_cuda_before_after.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
kernels=${KERNELS:-a-warp,joint-64x32,joint-32x32,joint-8x32,warp-joint-64x64,pipelined,hoisted,cublas}
IFS='|' read -r -a problems <<< "${PROBLEMS:-segments 128 0.5|segments 128 0.25|segments 32 0.5|uniform 32 1}"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for build in before bin; do
    for p in "${problems[@]}"; do
      read -r generator granularity density <<< "$p"
      "./.carry/$build/tileskip" bench --backend cuda --kernel "$kernels" --size 4096 --generator "$generator" \
        --granularity "$granularity" --density-a "$density" --density-b "$density" --repeat 15 --format csv \
        --out /tmp/ba.csv > /dev/null 2>> "$OUT/cuda.log" || echo "bench $build $p rc=$?" | tee -a "$OUT/cuda.log"
      sed "1!s/^/$build,$generator $granularity,$density,$round,/;1s/^/build,problem,density,round,/" /tmp/ba.csv |
        { [ -s "$OUT/ba-cuda.csv" ] && tail -n +2 || cat; } >> "$OUT/ba-cuda.csv"
    done
  done
done
python3 - "$OUT/ba-cuda.csv" <<'PY' | tee -a "$OUT/cuda.log"
import csv, sys, collections
ms = collections.defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    ms[(row["problem"], row["density"], row["kernel"], row["build"])].append(float(row["median_ms"]))
print("problem density kernel before_ms after_ms after/before")
for p, d, k in sorted({key[:3] for key in ms}):
    b, a = ms.get((p, d, k, "before")), ms.get((p, d, k, "bin"))
    if b and a:
        print(f"{p} {d} {k} {min(b):.4f} {min(a):.4f} {min(a) / min(b):.3f}")
PY
