#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry and .gl): the warp-uniform skipping kernels'
# per-tile work cut (lab/32-tile-work: no pattern scan before the gather, each pattern byte
# read once, the next tile asked for before the C store), timed against the build before it in
# alternating rounds, C compared. Steps, in the order given:
#   compile  a fresh machine's first Vulkan compiles (every kernel at 256^3), then warm again;
#   verify   `tileskip verify` on every backend;
#   cuda     .carry/before (tileskip and the CUDA module before the change) against .carry/bin on
#            the headline's problems, pipelined, hoisted and cuBLAS beside them;
#   vulkan   the embedded shaders against .carry/vulkan_variants/head_<stem>.spv (the shaders
#            before the change, glslangValidator --target-env vulkan1.1), through the probe;
#   headline `tileskip bench --suite headline`;
#   sass     a-warp's and joint-64x32's SASS in both CUDA modules (cuobjdump), as sass.tar.xz.
# At most eight files come back: device.txt, one log per step, ba-cuda.csv, headline.json.
#   [ROUNDS=2] lab/32-tile-work/gpu_tile_work.sh compile cuda ...
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>&1
ROUNDS=${ROUNDS:-2}
for step in "$@"; do
  start=$SECONDS
  case $step in
    compile)
      for pass in first warm; do
        t=$SECONDS
        timeout 400 "$BIN/tileskip" bench --backend vulkan --kernel all --size 256 --no-baseline --repeat 1 \
          >> "$OUT/compile.log" 2>&1
        echo "$pass compile: rc=$? $((SECONDS - t)) s" | tee -a "$OUT/compile.log"
      done ;;
    verify)
      "$BIN/tileskip" verify > "$OUT/verify.log" 2>&1
      echo "verify rc=$? $(grep -E '^totals' "$OUT/verify.log")" ;;
    cuda)
      KERNELS=a-warp,joint-64x32,joint-8x32,warp-joint-64x64,pipelined,hoisted,cublas \
        PROBLEMS="segments 128 0.5|segments 128 0.25|segments 32 0.5|segments 128 1" ROUNDS=$ROUNDS \
        bash lab/tools/gpu_cuda_before_after.sh ;;
    vulkan)
      for run in "a-warp head_s02_a_warp" "joint-64x32 head_s05_joint_64x32" "joint-8x32 head_s07_joint_8x32" \
                 "warp-joint-64x64 head_s08_warp_joint_64x64"; do
        set -- $run
        for p in "segments 128 0.5" "segments 128 0.25" "segments 32 0.5" "uniform 32 1"; do
          read -r generator granularity density <<< "$p"
          "$BIN/tileskip_vulkan_probe" --kernel "$1" --dtype fp32 --size 4096 --generator "$generator" \
            --granularity "$granularity" --density-a "$density" --density-b "$density" --repeat 15 --rounds "$ROUNDS" \
            --spirv .carry/vulkan_variants catalogue "$2" 2>&1 | tee -a "$OUT/vulkan.log" |
            grep -E '^(catalogue|head)' | sed "s/^/$1 $p: /"
        done
      done ;;
    headline)
      # Without NVIDIA_TF32_OVERRIDE: set to 0 it keeps cuBLAS off TF32 in the tf32 lines too (the
      # suite turns TF32 off for the fp32 lines itself).
      env -u NVIDIA_TF32_OVERRIDE "$BIN/tileskip" bench --suite headline --format json --out "$OUT/headline.json" \
        > "$OUT/headline.log" 2>&1
      echo "headline rc=$?"; grep -E "^\s*(best|same|skip|pattern)" "$OUT/headline.log" | head -12 ;;
    sass)
      mkdir -p /tmp/sass
      for build in before bin; do
        for f in _ZN8tileskip4cuda5aWarpILi128ELi128ELi8ELi64ELi64ELi8ELi4ELi128ELi32ELi1024EEEvPKfS3_PfiiiPKhS6_Pj \
                 _ZN8tileskip4cuda10joint64x32ILi128ELi128ELi8ELi64ELi64ELi8ELi4ELi128ELi64ELi32ELi1024EEEvPKfS3_PfiiiPKhS6_Pj; do
          name=joint-64x32
          [[ $f == *aWarp* ]] && name=a-warp
          cuobjdump -sass -fun "$f" ".carry/$build/libtileskip_cuda.so" > "/tmp/sass/$build-$name.sass" 2>&1
        done
      done
      tar -C /tmp -cJf "$OUT/sass.tar.xz" sass; ls -la /tmp/sass ;;
    *) echo "unknown step $step" ;;
  esac
  echo "[$step] $((SECONDS - start)) s"
done
