#!/usr/bin/env bash
# Prepares what a GPU run carries (scripts/gpu/README.md): the built binaries in .carry/bin
# and the Debian host libraries the GPU image lacks in .carry/hostlibs.tar.xz. The Vulkan loader
# and validation layers travel separately in .gl/ (scripts/gpu/README.md says how). Usage:
#   scripts/gpu/prepare_carry.sh [BUILD_DIR]     (default build/test)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/test}
rm -rf .carry/bin && mkdir -p .carry/bin
cp "$build"/bin/tileskip "$build"/bin/tileskip_tests .carry/bin/
# The Vulkan variant harness (lab/tools/vulkan_probe.cpp), where the build has it.
[ -f "$build/bin/tileskip_vulkan_probe" ] && cp "$build/bin/tileskip_vulkan_probe" .carry/bin/
# The CUDA module, and the test-only one whose kernels fail on purpose (tests/cuda_fault/).
find "$build/bin" -maxdepth 1 -name "libtileskip_cuda*.so" -exec cp {} .carry/bin/ \;
rm -rf .carry/vulkan_fault
[ -d "$build/tests/vulkan_fault" ] && cp -r "$build/tests/vulkan_fault" .carry/vulkan_fault
# The Python package (bench/gpu_python.sh): the build tree's, the CUDA module copied in, and the
# static libraries and headers to link the extension for another Python version there.
if [ -d "$build/python/tileskip" ]; then
  rm -rf .carry/python .carry/pylibs && mkdir -p .carry/python .carry/pylibs/include
  cp -rL "$build/python/tileskip" .carry/python/
  find "$build" -name 'libtileskip_*.a' ! -name '*fuzz*' ! -name '*ui*' -exec cp {} .carry/pylibs/ \;
  cp -r /usr/include/dlpack /usr/include/nlohmann .carry/pylibs/include/
  sed -n 's/^project(tileskip VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt > .carry/pylibs/version
fi
lib=/usr/lib/x86_64-linux-gnu
staging=$(mktemp -d)
for f in openblas-pthread/libopenblas.so.0 libgfortran.so.5 libquadmath.so.0 libglfw.so.3 libstb.so.0 \
         libX11.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 libmd.so.0 libcrypto.so.3 \
         libzip.so.4 libbz2.so.1.0; do
  cp -L "$lib/$f" "$staging/"
done
tar -C "$staging" -cJf .carry/hostlibs.tar.xz .
rm -rf "$staging"
du -sh .carry .gl 2>/dev/null
