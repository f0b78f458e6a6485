#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root (scripts/gpu/README.md), with the queue's row
# tiles taken longest first inside groups as tall as A's zeros allow (longest-rows-first.patch built
# in): lab 56's second call, so the two compare step for step — S12 and S13 verified in bf16 under
# compute-sanitizer (memcheck, racecheck), the bf16 blocksparse suite, and Nsight Compute on S13 at
# 128-blocks with A at 0.25 and 0.1. Logs under $OUT.
exec bash lab/56-s13-against-k14/session.sh after
