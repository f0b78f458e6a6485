#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): Nsight Compute on
# S13 (wgmma-queue-wide-64x64) at 128-blocks with A at 0.25 and 0.1 (B dense), and on K14 (wgmma),
# the loop S13 is built on, on the packed problems of the same products (K' = 1080 and 384, what the
# blocksparse suite's ceiling uses): where the 20-25 % between a skip and its own ceiling goes.
# Reports under $OUT.
#   session.sh after   with the queue's groups grown as A keeps less: S12 and S13 verified in bf16 under
#                      compute-sanitizer (memcheck, racecheck), the bf16 blocksparse suite, and the
#                      same profiles of S13
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
if [ "${1:-}" = after ]; then
  for K in wgmma-queue-wide-64x64 wgmma-queue-joint-64x64; do
    for tool in memcheck racecheck; do
      compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --quick --kernel $K --dtype bf16 \
        >"$OUT/sanitize-$tool-$K.log" 2>&1
      echo "$K $tool rc=$?"
    done
  done
  start=$(date +%s)
  "$T" bench --suite blocksparse --format json --out "$OUT/blocksparse.json" >"$OUT/blocksparse.log" 2>&1
  echo "blocksparse rc=$? $(( $(date +%s) - start )) s"
fi
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy"
M="--metrics sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_elapsed.avg,lts__t_sectors.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
for d in 0.25 0.1; do
  P="--backend cuda --size 4096 --dtype bf16 --generator-a blocks --generator-b uniform --block 128 --density-a $d --density-b 1 --repeat 3"
  timeout 150 ncu $S $M --kernel-name regex:'s12' --launch-skip 3 --launch-count 1 \
    "$T" bench $P --kernel wgmma-queue-wide-64x64 >"$OUT/ncu-s13-a$d.txt" 2>&1
  echo "ncu s13 a$d rc=$?"
done
[ "${1:-}" = after ] && exit 0
for k in 1080 384; do
  P="--backend cuda --m 4096 --n 4096 --k $k --dtype bf16 --generator uniform --density-a 1 --density-b 1 --repeat 3"
  timeout 150 ncu $S $M --kernel-name regex:'k14' --launch-skip 3 --launch-count 1 \
    "$T" bench $P --kernel wgmma >"$OUT/ncu-k14-k$k.txt" 2>&1
  echo "ncu k14 k$k rc=$?"
done
