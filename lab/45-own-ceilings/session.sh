#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): the blocksparse
# suite with each skipping kernel's own ceiling (the dense kernel of its loop on the packed
# problem), bf16 on CUDA, then fp16 on every backend (Vulkan's cooperative-matrix K13 and S10
# twins beside CUDA's). Logs and JSON under $OUT.
set -u
source scripts/gpu/gpu_setup.sh
start=$SECONDS
"$BIN/tileskip" bench --suite blocksparse --format json --out "$OUT/blocksparse.json" >"$OUT/blocksparse.log" 2>&1
echo "[blocksparse bf16] rc=$? $((SECONDS - start))s"
"$BIN/tileskip" bench --suite blocksparse --dtype fp16 --backend all --format json --out "$OUT/blocksparse-fp16.json" \
  >"$OUT/blocksparse-fp16.log" 2>&1
echo "[blocksparse fp16] rc=$? $((SECONDS - start))s"
for f in blocksparse blocksparse-fp16; do
python3 - "$OUT/$f.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["dtype"], d["devices"])
for c in d["cases"]:
    print("%-28s cublas %.4f ceil %.4f" % (c["case"], c["cublas_ms"] or 0, c["ceiling_ms"] or 0))
    for k in c["kernels"]:
        if k["own_ceiling"] or k["kernel"] in ("mma", "wgmma", "cublas"):
            print("   %-7s %-24s %.4f x%.2f ceil %.2f own %s %s" % (k["backend"], k["kernel"], k["kernel_ms"], k["speedup"] or 0,
                  k["ceiling_fraction"] or 0, k["own_ceiling"], "%.4f (%.2f)" % (k["own_ceiling_ms"], k["own_ceiling_fraction"]) if k["own_ceiling_ms"] else "-"))
    for f in c["failures"]:
        print("   FAILED", f)
PY
done
