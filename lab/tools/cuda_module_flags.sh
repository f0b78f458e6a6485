#!/usr/bin/env bash
# Issue 17: the CUDA module (libtileskip_cuda.so) rebuilt with extra nvcc flags for its kernels,
# beside an unchanged `tileskip`, so one GPU call can time the same kernels under several ptxas
# settings (tileskip loads the module from its own folder). Only the kernel table's unit is
# recompiled, with the build tree's own compile and link commands plus FLAGS.
#   lab/tools/cuda_module_flags.sh BUILD_DIR OUT_DIR FLAGS...
#   lab/tools/cuda_module_flags.sh build/test .carry/level8 -Xptxas=--register-usage-level=8
# Writes OUT_DIR/tileskip, OUT_DIR/libtileskip_cuda.so and OUT_DIR/ptxas.log (registers and spills
# per kernel).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BUILD_DIR OUT_DIR FLAGS..." >&2; exit 2; }
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
object=backends/cuda/CMakeFiles/tileskip_cuda.dir/kernel_dispatch.cu.o
cd "$build"
compile=$(ninja -t commands "$object" | tail -n 1)
link=$(ninja -t commands bin/libtileskip_cuda.so | tail -n 1)
case "$compile" in *kernel_dispatch.cu*) ;; *) echo "no compile command for $object in $build" >&2; exit 1 ;; esac
# The same command, writing elsewhere, with the flags (and ptxas's report) appended: a ptxas option
# given again overrides the build's own (the last one counts; checked for --register-usage-level).
eval "${compile/-o $object/-o $out/kernel_dispatch.cu.o} -Xptxas=-v $* 2> '$out/ptxas.log'" ||
  { cat "$out/ptxas.log" >&2; exit 1; }
link=${link//$object/$out/kernel_dispatch.cu.o}
eval "${link/-o bin\/libtileskip_cuda.so/-o $out/libtileskip_cuda.so}"
rm "$out/kernel_dispatch.cu.o"
cp bin/tileskip "$out/"
grep -E "Compiling entry|registers|spill" "$out/ptxas.log" > "$out/ptxas.tmp" && mv "$out/ptxas.tmp" "$out/ptxas.log"
