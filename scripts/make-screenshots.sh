#!/usr/bin/env bash
# Regenerates the viewer pictures in docs/images/ with `tileskip view --screenshot` (offscreen:
# no window, no display server). Usage: scripts/make-screenshots.sh [TILESKIP] [BACKEND]
#   TILESKIP  the binary (default: build/release/bin/tileskip, else build/dev/bin/tileskip)
#   BACKEND   cpu, vulkan or cuda (default: the best one found)
# The README and docs/teaching.md show these files; rerun after the viewer or the catalogue
# changes. Every picture is a step of docs/teaching.md, made with the settings the page gives.
set -euo pipefail
cd "$(dirname "$0")/.."
tileskip="${1:-}"
if [ -z "$tileskip" ]; then
  for candidate in build/release/bin/tileskip build/dev/bin/tileskip build/test/bin/tileskip; do
    if [ -x "$candidate" ]; then tileskip="$candidate"; break; fi
  done
fi
[ -x "$tileskip" ] || { echo "make-screenshots: no tileskip binary; build first or pass its path" >&2; exit 2; }
backend=()
[ -n "${2:-}" ] && backend=(--backend "$2")
out=docs/images
shot() {
  local name="$1"; shift
  "$tileskip" view "${backend[@]}" --size 512 --screenshot "$out/$name.png" "$@"
}
dense=(--density-a 1 --density-b 1 --teach)
# Explore (README, the tour).
shot view-dense --kernel joint-8x32 --density-a 1 --density-b 1
shot view-sparse --kernel joint-8x32 --density-a 0.3 --density-b 0.3
shot view-unstructured --kernel joint-8x32 --generator uniform --density-a 0.3 --density-b 0.3
shot view-loads --kernel joint-8x32 --density-a 0.5 --density-b 0.5 --block 8 --map loads
shot view-tile --kernel joint-8x32 --density-a 0.5 --density-b 0.5 --block 32 --select-tile 20,5
# Part 1: the dense half, each kernel's own view.
shot view-teach-coalescing --kernel naive "${dense[@]}"
shot view-teach-smem --kernel smem "${dense[@]}"
shot view-teach-registers --kernel blocktile2d "${dense[@]}"
shot view-teach-warptile --kernel warptile "${dense[@]}"
shot view-teach-pipeline --kernel pipelined "${dense[@]}" --teach-kblock 3
# Part 2: skipping.
shot view-teach-diverge --kernel a-row --density-a 0.5 --density-b 0.5 --block 8 --teach
shot view-teach --kernel joint-8x32 --density-a 0.5 --density-b 0.5 --block 8 --teach
# Part 3: tensor cores.
shot view-teach-mma --kernel mma --dtype fp16 "${dense[@]}"
shot view-teach-mma-skip --kernel mma-joint-64x32 --dtype bf16 --generator segments --block 64 --density-a 0.5 --density-b 0.5 --teach-view mma
