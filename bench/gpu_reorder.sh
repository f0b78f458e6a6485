#!/usr/bin/env bash
# Runs on the lent GPU machine (scripts/gpu/gpu_setup.sh's set-up): reordering as an honest
# experiment. For operands whose zeros a reordering can gather (64-wide zero blocks whose rows,
# columns and K were scrambled by a random permutation) and for ones it cannot (unstructured, ReLU),
# `bench --kernel auto` with and without --reorder on each backend: auto's choice and its measured
# speedup over pipelined, before and after. Logs under $OUT/reorder/, one archive back.
#   bench/gpu_reorder.sh [SIZE] [BACKENDS]      (default 4096, "cuda vulkan")
set -u
source "$(dirname "$0")/../scripts/gpu/gpu_setup.sh"
size=${1:-4096}
backends=${2:-cuda vulkan}
dir="$OUT/reorder"
mkdir -p "$dir"
gen() {  # gen NAME OPERAND ROWS COLS GENERATOR DENSITY [GRANULARITY]
  "$BIN/tileskip" gen --operand "$2" --rows "$3" --cols "$4" --generator "$5" --density "$6" \
    --block "${7:-32}" --seed 7 --out "$dir/$1.npy" >/dev/null
}
gen blocks-a A "$size" "$size" blocks 0.5 64
gen blocks-b B "$size" "$size" blocks 0.5 64
gen uniform-a A "$size" "$size" uniform 0.5
gen relu-a A "$size" "$size" relu 0.1
gen dense-b B "$size" "$size" uniform 1
# Scramble the block-sparse pair: one permutation of K for A's columns and B's rows, others for
# A's rows and B's columns. The product is the same matrix, permuted; its zeros no longer line up.
python3 - "$dir" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
a, b = np.load(f"{d}/blocks-a.npy"), np.load(f"{d}/blocks-b.npy")
g = np.random.default_rng(11)
rows, k, cols = g.permutation(a.shape[0]), g.permutation(a.shape[1]), g.permutation(b.shape[1])
np.save(f"{d}/scrambled-a.npy", np.ascontiguousarray(a[rows][:, k]))
np.save(f"{d}/scrambled-b.npy", np.ascontiguousarray(b[k][:, cols]))
EOF
cases=("blocks64|blocks-a|blocks-b" "scrambled-blocks64|scrambled-a|scrambled-b" "uniform-a0.5|uniform-a|dense-b"
       "relu-a0.1|relu-a|dense-b")
for backend in $backends; do
  for entry in "${cases[@]}"; do
    IFS='|' read -r name a b <<<"$entry"
    for reorder in "" "--reorder"; do
      log="$dir/$backend-$name${reorder:+-reordered}.log"
      "$BIN/tileskip" bench --backend "$backend" --kernel auto --no-baseline --a "$dir/$a.npy" --b "$dir/$b.npy" \
        $reorder >"$log" 2>&1
      echo "[$backend $name ${reorder:-as given}] rc=$? $(grep -m1 'reordered rows' "$log" | sed 's/^tileskip: //')"
      grep -E "^auto|^$backend " "$log" | sed 's/^/    /'
    done
  done
done
rm -f "$dir"/*.npy
tar -C "$OUT" -czf "$OUT/reorder.tgz" reorder && rm -rf "$dir"
