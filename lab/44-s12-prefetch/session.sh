#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): S12 verified in
# every dtype and under the sanitizers, Nsight Compute on S12 at 128-blocks A 0.1 (B dense) and
# A and B 0.25, then the blocksparse suite. Logs and JSON under $OUT.
set -u
source scripts/gpu/gpu_setup.sh
start=$SECONDS
"$BIN/tileskip" verify --backend cuda --kernel wgmma-queue-joint-64x64,wgmma-joint-64x64 >"$OUT/verify-s12.log" 2>&1
echo "[verify] rc=$? $((SECONDS - start))s"; tail -n 1 "$OUT/verify-s12.log"
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$BIN/tileskip" verify --backend cuda --quick \
    --kernel wgmma-queue-joint-64x64 --dtype bf16 >"$OUT/sanitize-$tool.log" 2>&1
  echo "[sanitize-$tool] rc=$? $((SECONDS - start))s"; tail -n 1 "$OUT/sanitize-$tool.log"
done
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
for c in "a01:--density-a 0.1 --density-b 1" "ab25:--density-a 0.25 --density-b 0.25"; do
  name=${c%%:*} args=${c#*:}
  ncu --clock-control none $sections --kernel-name "regex:s12_" --launch-skip 1 --launch-count 1 \
    "$BIN/tileskip" bench --backend cuda --kernel wgmma-queue-joint-64x64 --dtype bf16 --generator blocks --block 128 \
    $args --size 4096 > "$OUT/ncu-s12-$name.txt" 2>&1
  echo "[ncu $name] rc=$?"; grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\)" "$OUT/ncu-s12-$name.txt" | head -4
done
"$BIN/tileskip" bench --suite blocksparse --format json --out "$OUT/blocksparse.json" >"$OUT/blocksparse.log" 2>&1
echo "[blocksparse] rc=$? $((SECONDS - start))s"
python3 - "$OUT/blocksparse.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    ks = {k["kernel"]: k for k in c["kernels"]}
    s11, s12 = ks.get("wgmma-joint-64x64"), ks.get("wgmma-queue-joint-64x64")
    auto = [k["kernel"] for k in c["kernels"] if k["auto"]]
    print("%-28s cublas %.4f ceil %.4f S11 %.4f S12 %.4f S12/ceil %.2f S12x %.2f auto %s fastest %s" % (
        c["case"], c["cublas_ms"], c["ceiling_ms"], s11["kernel_ms"], s12["kernel_ms"], c["ceiling_ms"] / s12["kernel_ms"],
        c["cublas_ms"] / s12["kernel_ms"], auto, c["kernels"][0]["kernel"]))
PY
