#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry): the warp-uniform skipping kernels of two builds
# of the CUDA module timed in alternating rounds on the headline's problems (4096^3; zero segments
# of 128 and 32 rows / columns at A and B densities 0.707 .. 0.25, and dense operands), with
# pipelined, hoisted and cuBLAS beside them (lab/30-skip-hoisted). Expects .carry/before (a
# module built by lab/tools/cuda_module_flags.sh from the sources before the change) and
# .carry/bin (after). Verifies the after build first. Writes $OUT/ba-*.csv, $OUT/verify.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
export NVIDIA_TF32_OVERRIDE=0
ROUNDS=${ROUNDS:-2}
"$BIN/tileskip" verify --backend cuda > "$OUT/verify.log" 2>&1
echo "verify rc=$? $(grep -E 'passed|failed' "$OUT/verify.log" | tail -2)"
kernels=a-warp,b-warp,joint-64x32,joint-32x32,joint-8x32,warp-joint-64x64,warp-joint-32x32,pipelined,hoisted,cublas
problems=("128 0.707" "128 0.5" "128 0.354" "128 0.25" "32 0.5" "32 0.25" "128 1")
for round in $(seq 1 "$ROUNDS"); do
  for build in before bin; do
    for p in "${problems[@]}"; do
      set -- $p
      "./.carry/$build/tileskip" bench --backend cuda --kernel "$kernels" --size 4096 --generator segments \
        --granularity "$1" --density-a "$2" --density-b "$2" --repeat 15 --format csv \
        --out "$OUT/ba-$build-g$1-d$2-r$round.csv" > /dev/null 2>&1 || echo "bench $build $p rc=$?"
    done
  done
done
python3 - "$OUT" <<'PY'
import csv, glob, os, sys, collections
out = sys.argv[1]
ms = collections.defaultdict(list)
for f in glob.glob(os.path.join(out, "ba-*.csv")):
    build, g, d = os.path.basename(f).split("-")[1:4]
    for row in csv.DictReader(open(f)):
        ms[(g, d, row["kernel"], build)].append(float(row["median_ms"]))
keys = sorted({k[:3] for k in ms})
print("problem kernel before_ms after_ms after/before")
for g, d, k in keys:
    b, a = ms.get((g, d, k, "before")), ms.get((g, d, k, "bin"))
    if b and a:
        print(f"{g} {d} {k} {min(b):.3f} {min(a):.3f} {min(a)/min(b):.3f}")
PY
