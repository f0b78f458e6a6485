#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md): `tileskip mlp` on
# a LLaMA-2-7B-shaped layer (4096 tokens, 4096 wide, 11008 hidden; make_layer.py) at 90 % of the
# neurons inactive per token, firing exponents 2 and 2.5, bf16, each beside the same layer by
# cuBLAS twice (--compare cublas): auto for both GEMMs, S15 named for the second, and each again
# with --reorder (the neurons sorted by how often they fire). Every GEMM verified. Logs under $OUT,
# packed into results.tgz.
#   session.sh fused   the layer fused (K14's epilogue writing H for S15) at both exponents, without and
#                      with --reorder, beside cuBLAS twice, then compute-sanitizer (memcheck, racecheck)
#                      on a small odd-shaped one
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
if [ "${1:-}" = fused ]; then
  for s in 2 2.5; do
    D=/tmp/layer-$s
    python3 lab/54-mlp-layer/make_layer.py $D --skew $s >"$OUT/make-$s.txt" 2>&1
    for run in fused fused-reorder; do
      extra=""
      [ $run = fused-reorder ] && extra="--reorder"
      start=$(date +%s)
      "$T" mlp --backend cuda --x $D/x.npy --w1 $D/w1.npy --w2 $D/w2.npy --out $D/y.npy --dtype bf16 --compare cublas --repeat 20 \
        --first-kernel wgmma --kernel compact-wgmma-128 $extra >"$OUT/mlp-$s-$run.txt" 2>&1
      echo "mlp $s $run rc=$? $(( $(date +%s) - start )) s"
    done
  done
  D=/tmp/layer-small
  python3 lab/54-mlp-layer/make_layer.py $D --tokens 300 --width 136 --hidden 520 --skew 2 >"$OUT/make-small.txt" 2>&1
  for tool in memcheck racecheck; do
    for dtype in bf16 fp16; do
      compute-sanitizer --tool $tool --error-exitcode 9 "$T" mlp --backend cuda --x $D/x.npy --w1 $D/w1.npy --w2 $D/w2.npy \
        --out $D/y.npy --dtype $dtype --first-kernel wgmma --kernel compact-wgmma-128 >"$OUT/sanitize-$tool-$dtype.txt" 2>&1
      echo "$tool $dtype rc=$?"
    done
  done
  cd "$OUT" && tar czf results.tgz *.txt && rm -f *.txt
  exit 0
fi
for s in 2 2.5; do
  D=/tmp/layer-$s
  python3 lab/54-mlp-layer/make_layer.py $D --skew $s >"$OUT/make-$s.txt" 2>&1 || { echo "make $s failed"; cat "$OUT/make-$s.txt"; continue; }
  L="mlp --backend cuda --x $D/x.npy --w1 $D/w1.npy --w2 $D/w2.npy --out $D/y.npy --dtype bf16 --compare cublas --repeat 20"
  for run in auto s15 auto-reorder s15-reorder; do
    extra=""
    case $run in
      s15*) extra="--kernel compact-wgmma-128" ;;
    esac
    case $run in
      *reorder) extra="$extra --reorder" ;;
    esac
    start=$(date +%s)
    "$T" $L $extra >"$OUT/mlp-$s-$run.txt" 2>&1
    echo "mlp $s $run rc=$? $(( $(date +%s) - start )) s"
  done
done
cd "$OUT" && tar czf results.tgz *.txt && rm -f *.txt
