#!/usr/bin/env bash
# Sourced by the GPU-machine scripts (scripts/gpu/gpu_session.sh, bench/gpu_*.sh,
# bench/vulkan_tune.sh and the lab's session scripts): unpacks the Vulkan loader carried in .gl/
# and the host libraries the GPU image lacks (.carry/hostlibs, built on Debian 12), and points BIN
# at the carried binaries (.carry/bin) and OUT at the folder whose files come back.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
BIN=${BIN:-.carry/bin}
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
mkdir -p /tmp/hostlibs && tar -C /tmp/hostlibs -xJf .carry/hostlibs.tar.xz
export LD_LIBRARY_PATH=/tmp/hostlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The NVIDIA ICD's manifest: where the image's driver mount puts it, else the usual place.
if [ -z "${VK_DRIVER_FILES:-}" ]; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
    if [ -f "$icd" ]; then VK_DRIVER_FILES=$icd; break; fi
  done
fi
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/nvidia_icd.json}
# The test binary looks for its run-time modules in the build folder it was built in: with
# TILESKIP_BUILD_DIR set to that path (its absolute path on the build machine), it is made a link to BIN.
# The Vulkan test layer that loses the device on demand (tests/vulkan_fault/) likewise.
if [ -n "${TILESKIP_BUILD_DIR:-}" ]; then
  mkdir -p "$TILESKIP_BUILD_DIR" && ln -sfn "$(cd "$BIN" && pwd)" "$TILESKIP_BUILD_DIR/bin"
  if [ -d .carry/vulkan_fault ]; then
    mkdir -p "$TILESKIP_BUILD_DIR/tests" && ln -sfn "$(cd .carry/vulkan_fault && pwd)" "$TILESKIP_BUILD_DIR/tests/vulkan_fault"
  fi
fi
