#!/usr/bin/env bash
# Issue 17: builds lab/tools/dense_variants (unless build/tune/dense_variants exists) and runs it
# on the GPU, writing the log, a CSV and the ptxas register/spill report to $OUT.
#   lab/tools/dense_variants/run_dense_variants.sh [harness options: --sizes 2048,4096,8192 --repeat 15 --filter ms3]
# Environment: OUT (default build/tune), JOBS (parallel nvcc, default nproc), NVCC, ARCH (90),
# REBUILD=1 to rebuild, BUILD_ONLY=1 to stop after building, BUILD (default build/tune) for the build folder,
# NVCC_FLAGS for more nvcc flags (e.g. -Xptxas=--register-usage-level=8, lab/26-ptxas-register-level). The translation units compile in parallel (one nvcc each, ~1 minute
# apiece); the build line of one unit is
#   nvcc -O3 -std=c++20 -gencode=arch=compute_90,code=sm_90 -Ibackends/cuda -Ilab/tools -Xptxas -v -c lab/tools/dense_variants/<unit>.cu
# and the link: nvcc -gencode=arch=compute_90,code=sm_90 <objects> -lcublas -o dense_variants
set -euo pipefail
cd "$(dirname "$0")/../../.."
BUILD=${BUILD:-build/tune}
NVCC_FLAGS=${NVCC_FLAGS:-}
OUT=${OUT:-$BUILD}
JOBS=${JOBS:-$(nproc)}
ARCH=${ARCH:-90}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
GENCODE="-gencode=arch=compute_${ARCH},code=sm_${ARCH}"
UNITS="dense_variants dense_variants_reference dense_variants_register dense_variants_stages dense_variants_lanes dense_variants_depth dense_variants_wide dense_variants_copy dense_variants_order dense_variants_stream"
mkdir -p "$BUILD" "$OUT"

if [ ! -x "$BUILD/dense_variants" ] || [ "${REBUILD:-0}" = 1 ]; then
  echo "building with $NVCC ($JOBS jobs), sm_$ARCH"
  start=$(date +%s)
  export NVCC GENCODE BUILD NVCC_FLAGS
  if ! printf '%s\n' $UNITS | xargs -P "$JOBS" -I{} sh -c \
      '"$NVCC" -O3 -std=c++20 $GENCODE -Ibackends/cuda -Ilab/tools -lineinfo $NVCC_FLAGS -Xptxas -v -c lab/tools/dense_variants/{}.cu -o "$BUILD/{}.o" 2> "$BUILD/{}.ptxas" || { cat "$BUILD/{}.ptxas"; exit 255; }'; then
    echo "build failed" >&2
    exit 1
  fi
  objects=""
  for unit in $UNITS; do objects="$objects $BUILD/$unit.o"; done
  "$NVCC" $GENCODE $objects -lcublas -o "$BUILD/dense_variants"
  echo "built in $(( $(date +%s) - start )) s"
fi
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0

# Registers and spills per kernel, from ptxas (the harness prints them from the runtime too).
for unit in $UNITS; do
  [ -f "$BUILD/$unit.ptxas" ] && grep -E "Compiling entry|registers|spill" "$BUILD/$unit.ptxas" || true
done > "$OUT/ptxas.log"

export NVIDIA_TF32_OVERRIDE=0  # cuBLAS SGEMM in plain fp32, whatever the environment says
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1 || true
"$BUILD/dense_variants" "$@" --csv "$OUT/dense_variants.csv" 2>&1 | tee "$OUT/dense_variants.log"
