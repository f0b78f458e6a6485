#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md):
#   session.sh         S15 verified in both 16-bit types and under compute-sanitizer (racecheck,
#                      memcheck) on the quick suite, then `bench --suite activations` at 4096 in bf16
#                      (S14, S15 and the tile-skipping kernels against cuBLAS and the packed ceiling of
#                      the live columns at 64 rows), then S15 under Nsight Compute on the exponent-2 case
#   session.sh quick   S15, S14, K14 and cuBLAS on a dense A and on the exponent-2 and 2.5 neurons A at 4096^3, bf16
#   session.sh sorted  the same kernels on the exponent-2 and 2.5 neurons A with its columns (neurons) sorted by
#                      how many tokens fire them, B's rows in the same order: the same C, live columns clustered
# Logs and JSON under $OUT, packed into results.tgz.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
if [ "${1:-}" = sorted ]; then
  D=/tmp/s15 && mkdir -p $D
  "$T" gen --generator uniform --rows 4096 --cols 4096 --density 1 --operand B --seed 2 --out $D/B.npy >/dev/null
  for s in 2 2.5; do
    "$T" gen --generator neurons --rows 4096 --cols 4096 --density 0.1 --skew $s --seed 1 --out $D/A-$s.npy >/dev/null
    python3 -c "
import numpy as np
a = np.load('$D/A-$s.npy'); b = np.load('$D/B.npy')
order = np.argsort(-(a != 0).sum(axis=0), kind='stable')
np.save('$D/A-$s-sorted.npy', np.ascontiguousarray(a[:, order])); np.save('$D/B-$s-sorted.npy', np.ascontiguousarray(b[order, :]))
"
    for a in $s $s-sorted; do
      bb=$D/B.npy; [ $a = $s-sorted ] && bb=$D/B-$s-sorted.npy
      "$T" bench --backend cuda --a $D/A-$a.npy --b $bb --dtype bf16 --kernel compact-wgmma-128,compact-mma-64,wgmma,cublas \
        --no-baseline --repeat 20 >"$OUT/sorted-$a.txt" 2>&1
      echo "sorted $a rc=$?"
      "$T" inspect --a $D/A-$a.npy --b $bb --dtype bf16 >"$OUT/inspect-$a.txt" 2>&1
    done
  done
  cd "$OUT" && tar czf results.tgz *.txt && rm -f *.txt
  exit 0
fi
if [ "${1:-}" = quick ]; then
  D=/tmp/s15 && mkdir -p $D
  "$T" gen --generator uniform --rows 4096 --cols 4096 --density 1 --operand B --seed 2 --out $D/B.npy >/dev/null
  "$T" gen --generator uniform --rows 4096 --cols 4096 --density 1 --seed 1 --out $D/A-dense.npy >/dev/null
  for s in 2 2.5; do "$T" gen --generator neurons --rows 4096 --cols 4096 --density 0.1 --skew $s --seed 1 --out $D/A-$s.npy >/dev/null; done
  for a in dense 2 2.5; do
    "$T" bench --backend cuda --a $D/A-$a.npy --b $D/B.npy --dtype bf16 --kernel compact-wgmma-128,compact-mma-64,wgmma,cublas \
      --no-baseline --repeat 20 >"$OUT/quick-$a.txt" 2>&1
    echo "quick $a rc=$?"
  done
  cd "$OUT" && tar czf results.tgz *.txt && rm -f *.txt
  exit 0
fi
"$T" verify --backend cuda --kernel compact-wgmma-128 >"$OUT/verify.log" 2>&1
echo "verify rc=$?"
for tool in racecheck memcheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --quick --kernel compact-wgmma-128 --dtype bf16 \
    >"$OUT/sanitize-$tool.log" 2>&1
  echo "$tool rc=$?"
done
"$T" bench --suite activations --backend cuda --size 4096 --format json --out "$OUT/h200-activations.json" \
  >"$OUT/activations.log" 2>&1
echo "activations rc=$?"
"$T" bench --suite activations --backend cuda --size 4096 >"$OUT/activations-table.txt" 2>&1 || true
D=/tmp/s15 && mkdir -p $D
"$T" gen --generator neurons --rows 4096 --cols 4096 --density 0.1 --skew 2 --seed 1 --out $D/A.npy >/dev/null
"$T" gen --generator uniform --rows 4096 --cols 4096 --density 1 --operand B --seed 2 --out $D/B.npy >/dev/null
timeout 120 ncu --kernel-name regex:s15 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section Occupancy --section WarpStateStats "$T" bench --backend cuda --a $D/A.npy --b $D/B.npy --dtype bf16 \
  --kernel compact-wgmma-128 --no-baseline --repeat 1 >"$OUT/ncu-s15.txt" 2>&1
echo "ncu rc=$?"
cd "$OUT" && tar czf results.tgz *.log *.json *.txt 2>/dev/null && rm -f *.log *.json *.txt
