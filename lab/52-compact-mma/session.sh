#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md):
#   session.sh check   S14 verified in both 16-bit types, and under compute-sanitizer (racecheck,
#                      memcheck) on the quick suite
#   session.sh time    S14 against cuBLAS bf16, K13 and K14 on spread-out zeros (the neurons generator,
#                      90 % inactive, power-law exponents 1 to 2.5, and a dense A), at 4096^3 and at
#                      LLaMA-2-7B's down projection (4096 tokens x 11008 -> 4096); and the packed
#                      ceilings: cuBLAS, K13 and K14 on the dense problem with K' = K x the live
#                      fraction inspect measures at 64 rows
# Logs and JSON under $OUT.
set -u
source scripts/gpu/gpu_setup.sh >/dev/null 2>&1
T=$BIN/tileskip
case "${1:-}" in
  check)
    "$T" verify --backend cuda --kernel compact-mma-64 >"$OUT/verify.log" 2>&1
    echo "verify rc=$?"
    for tool in racecheck memcheck; do
      compute-sanitizer --tool $tool --error-exitcode 9 "$T" verify --backend cuda --quick --kernel compact-mma-64 --dtype bf16 \
        >"$OUT/sanitize-$tool.log" 2>&1
      echo "$tool rc=$?"
    done
    ;;
  time)
    D=/tmp/compact && mkdir -p $D
    KERNELS=compact-mma-64,mma,wgmma,cublas
    for shape in "4096 4096 4096" "4096 11008 4096"; do
      set -- $shape; M=$1 K=$2 N=$3
      "$T" gen --generator uniform --rows $K --cols $N --density 1 --operand B --seed 2 --out $D/B-$K.npy >/dev/null
      for skew in dense 1 1.5 2 2.5; do
        A=$D/A-$K-$skew.npy
        if [ $skew = dense ]; then
          "$T" gen --generator uniform --rows $M --cols $K --density 1 --seed 1 --out $A >/dev/null
        else
          "$T" gen --generator neurons --rows $M --cols $K --density 0.1 --skew $skew --seed 1 --out $A >/dev/null
        fi
        "$T" inspect --a $A --b $D/B-$K.npy --dtype bf16 --format json >"$OUT/inspect-$K-$skew.json" 2>/dev/null
        live=$(python3 -c "import json,sys; d=json.load(open('$OUT/inspect-$K-$skew.json')); print(min(c['live_fraction'] for c in d['compaction'] if c['rows']==64 and c['granularity']==1))")
        KP=$(python3 -c "print(max(16, round($K * $live / 16) * 16))")
        echo "M=$M K=$K N=$N skew=$skew live=$live packed K=$KP"
        "$T" bench --backend cuda --a $A --b $D/B-$K.npy --dtype bf16 --kernel $KERNELS --no-baseline --repeat 20 \
          --format json --out "$OUT/bench-$K-$skew.json" >"$OUT/bench-$K-$skew.log" 2>&1
        echo "  bench rc=$?"
        "$T" bench --backend cuda --m $M --n $N --k $KP --generator uniform --density-a 1 --density-b 1 --dtype bf16 \
          --kernel mma,wgmma,cublas --no-baseline --repeat 20 --format json --out "$OUT/ceiling-$K-$skew.json" \
          >"$OUT/ceiling-$K-$skew.log" 2>&1
        echo "  ceiling rc=$?"
      done
    done
    ;;
  *) echo "usage: session.sh check|time" >&2; exit 2 ;;
esac
