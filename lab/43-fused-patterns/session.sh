#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): the CUDA device
# tests, every 16-bit kernel verified (their patterns now come from one fused launch), the
# sanitizers on the pattern launch through S11 and S12, Nsight Compute's time of the pattern
# kernel (before: two launches, lab/41's ncu-patterns.log), then the blocksparse suite with the
# static-A end-to-end column. Logs and JSON under $OUT.
set -u
source scripts/gpu/gpu_setup.sh
start=$SECONDS
"$BIN/tileskip_tests" --gtest_filter='CudaDevice.*:CudaPython*' >"$OUT/gtest-cuda.log" 2>&1
echo "[gtest-cuda] rc=$? $((SECONDS - start))s"; tail -n 3 "$OUT/gtest-cuda.log"
"$BIN/tileskip" verify --backend cuda >"$OUT/verify-cuda.log" 2>&1
echo "[verify-cuda] rc=$? $((SECONDS - start))s"; tail -n 2 "$OUT/verify-cuda.log"
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$BIN/tileskip" verify --backend cuda --quick \
    --kernel wgmma-joint-64x64,wgmma-queue-joint-64x64,mma-joint-64x32 --dtype bf16 >"$OUT/sanitize-$tool.log" 2>&1
  echo "[sanitize-$tool] rc=$? $((SECONDS - start))s"; tail -n 2 "$OUT/sanitize-$tool.log"
done
for block in 64 128; do
  ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
    --kernel-name "regex:buildPatternsFromHalves" --launch-skip 2 --launch-count 1 \
    "$BIN/tileskip" bench --backend cuda --kernel wgmma-queue-joint-64x64 --dtype bf16 --generator blocks --block $block \
    --density-a 0.25 --density-b 0.25 --size 4096 > "$OUT/ncu-patterns-$block.txt" 2>&1
  echo "[ncu $block] rc=$?"; grep -E "Duration|DRAM Throughput|Memory Throughput|Grid Size" "$OUT/ncu-patterns-$block.txt" | head -6
done
"$BIN/tileskip" bench --suite blocksparse --format json --out "$OUT/blocksparse.json" >"$OUT/blocksparse.log" 2>&1
echo "[blocksparse] rc=$? $((SECONDS - start))s"
python3 - "$OUT/blocksparse.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    print(c["case"], "cublas %.4f ceiling %.4f" % (c["cublas_ms"], c["ceiling_ms"]))
    for k in c["kernels"]:
        if k["kernel"].startswith("wgmma-") or k["auto"]:
            s = k["e2e_static_a_ms"]
            print("  %-26s k %.4f prep %.4f e2e %.4f staticA %s auto=%s" % (k["kernel"], k["kernel_ms"], k["prepare_ms"], k["e2e_ms"],
                  "%.4f" % s if s else "-", k["auto"]))
PY
