#!/usr/bin/env bash
# On the GPU machine (device tool; carry .carry): the CUDA kernels under several ptxas settings,
# each a module built by lab/tools/cuda_module_flags.sh into .carry/<name>/ beside an unchanged
# tileskip, timed against the carried build (.carry/bin) in one call, rounds alternating. Every
# bench run verifies each kernel against the float64 reference before timing it.
#   MODULES="bin level8" ROUNDS=2 lab/26-ptxas-register-level/gpu_ptxas_levels.sh
# Writes $OUT/levels/<module>-<case>-r<round>.csv and .txt, packed into $OUT/levels-r<round>.tgz after
# each round (so a call cut off at its time limit still brings back the rounds it finished). Each
# module takes about a minute a round on an H200.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/gpu_setup.sh
MODULES=${MODULES:-bin $(cd .carry && ls -d level* 2>/dev/null | tr '\n' ' ')}
ROUNDS=${ROUNDS:-2}
log=$OUT/levels && mkdir -p "$log"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$log/device.txt" 2>&1
for m in $MODULES; do cp ".carry/$m/ptxas.log" "$log/$m-ptxas.log" 2>/dev/null; done
simt=warptile,pipelined,hoisted,a-warp,b-warp,joint-64x32,joint-32x32,joint-8x32,warp-joint-64x64,warp-joint-32x32
tensor=mma,mma-joint-64x32,wgmma,wgmma-joint-64x64
run() {  # run MODULE CASE ARGS...: one bench of MODULE's build
  local m=$1 c=$2
  shift 2
  ".carry/$m/tileskip" bench --backend cuda --format csv --out "$log/$m-$c-r$round.csv" "$@" > "$log/$m-$c-r$round.txt" 2>&1
  echo "$m $c r$round: rc=$?"
}
for round in $(seq "$ROUNDS"); do
  for m in $MODULES; do
    run "$m" dense "--kernel=$simt" --generator blocks --granularity 64 --density-a 1 --density-b 1
    run "$m" blocks64-0.5 "--kernel=$simt" --generator blocks --granularity 64 --density-a 0.5 --density-b 0.5
    run "$m" k12-8192 --kernel hoisted --size 8192 --density-a 1 --density-b 1
    run "$m" bf16-dense "--kernel=$tensor" --dtype bf16 --generator blocks --granularity 64 --density-a 1 --density-b 1
  done
  tar -C "$OUT" -czf "$OUT/levels-r$round.tgz" levels && rm -f "$log"/*-r"$round".*
done
