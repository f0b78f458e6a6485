#!/usr/bin/env bash
# Runs on this machine (no GPU needed): the live fraction K-compaction could gather from the
# `neurons` generator's activations, by `tileskip inspect --format json`, over the firing skew,
# the per-token active fraction (the density) and K, for 1024 tokens, with and without --reorder.
#   sweep.sh TILESKIP OUT_FOLDER    (then: summarize.py OUT_FOLDER > live-fractions.json)
set -eu
T=$1
OUT=$2
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$T" gen --generator uniform --rows 11008 --cols 64 --density 1 --operand B --out "$TMP/w11008.npy" >/dev/null
"$T" gen --generator uniform --rows 4096 --cols 64 --density 1 --operand B --out "$TMP/w4096.npy" >/dev/null
for k in 4096 11008; do
  for density in 0.1 0.05; do
    for skew in 0.5 1 1.5 2 2.5 3; do
      "$T" gen --generator neurons --skew $skew --rows 1024 --cols $k --density $density --seed 7 --out "$TMP/h.npy" >/dev/null
      "$T" inspect --backend cpu --a "$TMP/h.npy" --b "$TMP/w$k.npy" --format json --out "$OUT/k$k-d$density-s$skew.json" >/dev/null 2>>"$OUT/sweep.log"
      "$T" inspect --backend cpu --a "$TMP/h.npy" --b "$TMP/w$k.npy" --reorder --format json \
        --out "$OUT/k$k-d$density-s$skew-reordered.json" >/dev/null 2>>"$OUT/sweep.log"
    done
  done
done
