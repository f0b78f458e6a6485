#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): S11 with per-box
# skipping (.carry/bin) beside the S11 before it (.carry/old, whose CLI names the block edge
# --granularity), on the same bf16 problems; then the correctness checks of the new S11 and the
# blocksparse suite. Logs and JSON under $OUT.
set -u
source scripts/gpu/gpu_setup.sh
NEW=$BIN/tileskip
OLD=.carry/old/tileskip
compare() {  # compare BLOCK DENSITY_A DENSITY_B
  local tag="b$1-a$2-b$3" common="--backend cuda --dtype bf16 --size 4096 --generator blocks --density-a $2 --density-b $3"
  $NEW bench $common --block "$1" --kernel wgmma-joint-64x64,wgmma,cublas --format json --out "$OUT/new-$tag.json" >"$OUT/new-$tag.log" 2>&1
  $OLD bench $common --granularity "$1" --kernel wgmma-joint-64x64,wgmma,cublas --format json --out "$OUT/old-$tag.json" >"$OUT/old-$tag.log" 2>&1
  echo "[$tag] new rc=$? $(grep -h 'wgmma-joint' "$OUT/new-$tag.log" | head -1)"
  echo "[$tag] old     $(grep -h 'wgmma-joint' "$OUT/old-$tag.log" | head -1)"
}
start=$SECONDS
$NEW verify --backend cuda --kernel wgmma-joint-64x64,wgmma >"$OUT/verify-s11.log" 2>&1
echo "[verify-s11] rc=$? $((SECONDS - start))s"; tail -n 4 "$OUT/verify-s11.log"
for block in 64 128; do
  for d in 0.5 0.25; do compare $block $d $d; done
done
compare 64 0.25 1.0
echo "[compare] $((SECONDS - start))s"
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 $NEW verify --backend cuda --kernel wgmma-joint-64x64 --quick >"$OUT/sanitize-$tool.log" 2>&1
  echo "[sanitize-$tool] rc=$? $((SECONDS - start))s"; tail -n 3 "$OUT/sanitize-$tool.log"
done
