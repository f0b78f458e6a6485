#!/usr/bin/env bash
# Runs on the lent GPU machine: times one kernel on the Vulkan backend under each tile/switch
# variant given (TILESKIP_VULKAN_TILES entries without the "kernel=" prefix; "-" is the
# catalogue's own), with the driver's pipeline statistics, one summary line per variant.
#   bench/vulkan_tune.sh KERNEL SIZE VARIANT...
#   bench/vulkan_tune.sh pipelined 4096 - prefetch=0 128x128x16/64x64/8x4/128 fma=1,branchfree=1
# DENSITY (default 1) and GRANULARITY (default 32) set the operands, for the skipping kernels.
# Logs go to $OUT/vulkan-tune-KERNEL.log.
set -u
source "$(dirname "$0")/../scripts/gpu/gpu_setup.sh"
kernel=$1 size=$2
shift 2
log=$OUT/vulkan-tune-$kernel.log
: >"$log"
for variant in "$@"; do
  tiles=""
  [ "$variant" != "-" ] && tiles="$kernel=$variant"
  out=$(TILESKIP_VULKAN_TILES="$tiles" TILESKIP_VULKAN_PIPELINE_STATS=1 \
        timeout 120 "$BIN/tileskip" bench --backend vulkan --kernel "$kernel" --size "$size" \
        --density-a "${DENSITY:-1}" --density-b "${DENSITY:-1}" --block "${GRANULARITY:-32}" --no-baseline --format csv 2>&1)
  rc=$?
  { echo "== $kernel $variant (rc=$rc)"; echo "$out"; } >>"$log"
  # The kernel's CSV row (its milliseconds and GFLOPS) and the driver's register count.
  row=$(echo "$out" | grep -m1 ",$kernel,$size,$size,$size," || echo "$out" | tail -n 1)
  regs=$(echo "$out" | grep -m1 "vulkan pipeline $kernel" | grep -o -i '[^,|]*register[^,|]*' | head -n 2 | tr '\n' ' ')
  echo "$variant | rc=$rc | $row | $regs"
done
