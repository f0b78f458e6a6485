#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): Vulkan pipelines with the driver's bounds
# checks of storage buffers turned off (VK_EXT_pipeline_robustness, bench/NOTES.md step 36) against
# .carry/before's, in alternating rounds, C verified by each bench; CUDA K12 beside them for the
# twin ratio. Then `tileskip verify` and each build's K12 once more into a driver disk cache of its
# own, brought back as $OUT/glcache.tgz for bench/tune/nv_cache_sass.py. Writes $OUT/robust.csv,
# robust.log, verify.log.
#   [ROUNDS=3] [KERNELS=hoisted,joint-64x32,a-warp] [PROBLEMS="uniform 32 1|segments 128 0.25"]
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/robust.log"
kernels=${KERNELS:-hoisted,joint-64x32,a-warp}
IFS='|' read -r -a problems <<< "${PROBLEMS:-uniform 32 1|segments 128 0.25}"
bench() {  # build backend kernels size generator granularity density round
  "./.carry/$1/tileskip" bench --backend "$2" --kernel "$3" --size "$4" --generator "$5" --granularity "$6" \
    --density-a "$7" --density-b "$7" --repeat 15 --no-baseline --format csv --out /tmp/r.csv > /dev/null 2>> "$OUT/robust.log" ||
    echo "bench $* rc=$?" | tee -a "$OUT/robust.log"
  sed "1!s/^/$1,$4,$5 $6,$7,$8,/;1s/^/build,size,problem,density,round,/" /tmp/r.csv |
    { [ -s "$OUT/robust.csv" ] && tail -n +2 || cat; } >> "$OUT/robust.csv"
}
for round in $(seq 1 "${ROUNDS:-3}"); do
  for build in before bin; do
    for p in "${problems[@]}"; do bench "$build" vulkan "$kernels" 4096 $p "$round"; done
    bench "$build" vulkan hoisted 8192 uniform 32 1 "$round"
  done
  bench bin cuda hoisted 4096 uniform 32 1 "$round"
  bench bin cuda hoisted 8192 uniform 32 1 "$round"
done
python3 - "$OUT/robust.csv" <<'PY' | tee -a "$OUT/robust.log"
import csv, sys, collections
ms = collections.defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    ms[(row["backend"], row["size"], row["problem"], row["density"], row["kernel"], row["build"])].append(float(row["median_ms"]))
print("backend size problem density kernel before_ms after_ms after/before (best median; every median)")
for key in sorted({k[:5] for k in ms}):
    b, a = ms.get(key + ("before",)), ms.get(key + ("bin",))
    if b and a:
        print(*key, f"{min(b):.4f} {min(a):.4f} {min(a) / min(b):.3f}", " ".join(f"{x:.4f}" for x in b), "|", " ".join(f"{x:.4f}" for x in a))
    else:
        print(*key, "-", f"{min(a or b):.4f}", " ".join(f"{x:.4f}" for x in (a or b)))
PY
"$BIN/tileskip" verify --backend vulkan > "$OUT/verify.log" 2>&1
echo "verify rc=$? $(grep -E '^totals' "$OUT/verify.log")" | tee -a "$OUT/robust.log"
for build in before bin; do
  mkdir -p "/tmp/glcache/$build"  # the driver does not create it
  __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=/tmp/glcache/$build __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
    "./.carry/$build/tileskip" bench --backend vulkan --kernel hoisted --size 512 --repeat 1 --no-baseline > /dev/null 2>&1
done
tar -C /tmp -czf "$OUT/glcache.tgz" glcache
