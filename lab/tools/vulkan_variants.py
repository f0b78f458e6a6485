#!/usr/bin/env python3
"""Builds variants of a Vulkan kernel's shader for tileskip_vulkan_probe (lab/tools/vulkan_probe.cpp).

Each variant is the product's kernels/ with a few named text edits, compiled as the build compiles
them (glslangValidator --target-env vulkan1.1) into OUT/<name>.spv. Most are probes that leave
something out on purpose (global loads, stage stores, barriers) to see what it costs on the GPU:
their C differs from the catalogue's, which the probe prints beside the time. An edit that no
longer matches the source fails the build of that variant, so a stale probe cannot time the
unchanged kernel under a new name; a test builds them all (lab/tools/CMakeLists.txt). The schedules
that the ring's turns replaced (one K-tile in flight, the store first, C straight or through the
stages; lab/25-vulkan-k13-driver), and K12 with A and B read without readonly (now the product's;
lab/33-glsl-k-loop), are gone with the text they edited; their numbers are in those entries; so is K12
fetching at K offsets, now the product's (lab/37-vulkan-calibration).

  lab/tools/vulkan_variants.py OUT [NAME...]     (default: every variant)
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Edits: (file in kernels/, text that must occur exactly once, replacement).
B_COLUMN_MAJOR = ("parts/mma.glsl",
                  "coopMatLoadNV(mmaB[j], stageB, first / CHUNK, stride / CHUNK, false)",
                  "coopMatLoadNV(mmaB[j], stageB, first / CHUNK, stride / CHUNK, true)")
NO_GLOBAL = [("parts/ring.glsl",
              "tile.a[p] = fetchAChunk(row0 + c / K_SLOTS, fetchedKBlockOfSlot(c % K_SLOTS));",
              "tile.a[p] = uvec4(c);"),
             ("parts/ring.glsl",
              "tile.b[p] = fetchBChunk(fetchedKBlockOfSlot(kk / K_BLOCK), kk % K_BLOCK, col0 + (c % B_CHUNKS_PER_ROW) * CHUNK);",
              "tile.b[p] = uvec4(kk);")]
NO_STAGE = [("parts/ring.glsl",
             "  if (incoming + 1u < steps && myTurn(incoming + 1u)) fetchKTile(row0, col0, incoming + 1u, mine);\n", ""),
            ("parts/ring.glsl",
             "  if (incoming < steps && myTurn(incoming)) storeKTile(incoming % RING_STAGES, mine);\n", "")]
NO_BARRIER = [("parts/ring.glsl",
               "  computeKTile(step % RING_STAGES, step);\n  barrier();\n",
               "  computeKTile(step % RING_STAGES, step);\n")]
# The fragments loaded once, before the loop; every step multiplies them again.
FROM_REGISTERS = [("parts/ring.glsl",
                   "void multiplyStep(uint stage, uint kk) {\n",
                   "void loadStep(uint stage, uint kk) {\n"),
                  ("parts/ring.glsl",
                   "  [[unroll]] for (uint i = 0u; i < M_PIECES; ++i) {\n    [[unroll]] for (uint j = 0u; j < N_PIECES; ++j) mmaMultiplyAdd(i, j);\n  }\n}\n",
                   "}\nvoid multiplyStep(uint stage, uint kk) {\n"
                   "  [[unroll]] for (uint i = 0u; i < M_PIECES; ++i) {\n    [[unroll]] for (uint j = 0u; j < N_PIECES; ++j) mmaMultiplyAdd(i, j);\n  }\n}\n"),
                  ("k13_mma.comp",
                   "  mmaZeroAccumulators();\n",
                   "  mmaZeroAccumulators();\n  loadStep(0u, 0u);\n")]

# Every workgroup fetches the first block tile's rows of A and columns of B: 2 MiB in all, in L2.
SAME_TILE = [("parts/ring.glsl",
              "  if (incoming + 1u < steps && myTurn(incoming + 1u)) fetchKTile(row0, col0, incoming + 1u, mine);\n",
              "  if (incoming + 1u < steps && myTurn(incoming + 1u)) fetchKTile(0u, 0u, incoming + 1u, mine);\n")]
# The 16-byte loads without readonly: plain global loads instead of the read-only data path.
PLAIN_LOADS = [("parts/ring.glsl",
                "layout(set = 0, binding = 6, std430) restrict readonly buffer MatrixAHalf8 { uvec4 AH8[]; };",
                "layout(set = 0, binding = 6, std430) buffer MatrixAHalf8 { uvec4 AH8[]; };"),
               ("parts/ring.glsl",
                "layout(set = 0, binding = 7, std430) restrict readonly buffer MatrixBHalf8 { uvec4 BH8[]; };",
                "layout(set = 0, binding = 7, std430) buffer MatrixBHalf8 { uvec4 BH8[]; };")]
# How many workgroups run at once (the driver does not say how many it puts on an SM): a counter of
# running workgroups and its maximum in C's first two words, which every run leaves at their
# start value and start value + the most seen (the probe's --print-c shows them); C is not stored.
RESIDENCY = [("k13_mma.comp",
              "void main() {\n",
              "layout(set = 0, binding = 2, std430) coherent buffer Residency { uint running; uint most; };\n"
              "void main() {\n  if (gl_LocalInvocationIndex == 0u) atomicMax(most, atomicAdd(running, 1u) + 1u);\n"),
             ("k13_mma.comp",
              "  storeMmaWarpTile(row0, col0);\n",
              "  barrier();\n  if (gl_LocalInvocationIndex == 0u) atomicAdd(running, 0xffffffffu);\n")]

# RESIDENCY with PAD more bytes of shared memory per workgroup, written so that it stays.
def padded(pad):
    return RESIDENCY + [("k13_mma.comp",
                         "void main() {\n",
                         f"shared uvec4 residencyPad[{pad // 16}];\nvoid main() {{\n"
                         f"  residencyPad[gl_LocalInvocationIndex % {pad // 16}u] = uvec4(gl_LocalInvocationIndex);\n"
                         f"  barrier();\n"
                         f"  if (residencyPad[(gl_LocalInvocationIndex + 1u) % {pad // 16}u].x == 0xffffffffu) atomicAdd(most, 1u);\n")]


# K12 without global loads in its loop: the K-tile in flight is made of its indices (C differs).
K12_NO_GLOBAL = [("parts/hoisted.glsl",
                  "  [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) stagedA[p] = A4[aFrom + p * aPassVectors];\n"
                  "  [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) stagedB[p] = B4[bFrom + p * bPassVectors];\n",
                  "  [[unroll]] for (uint p = 0u; p < A_FETCH_PASSES; ++p) stagedA[p] = vec4(aFrom + p);\n"
                  "  [[unroll]] for (uint p = 0u; p < B_FETCH_PASSES; ++p) stagedB[p] = vec4(bFrom + p);\n")]

# K12 taking its block tiles from the tile queue (binding 5, zero at the start; the last workgroup
# resets it), as the skipping kernels do, in their row-major order: `groups` workgroups of the
# dispatch work (all of a smaller one), the others leave at once (the probe dispatches a workgroup
# a tile). Asked whether persistent workgroups make Vulkan's list-loop kernels faster than K12 on
# dense operands: they do not, K12 ran slower so (lab/37-vulkan-calibration).
def k12_persistent(groups):
    return [("k12_hoisted.comp",
             """void main() {
  uvec2 block = groupedBlockCoord(GROUP_ROWS);
  uint row0 = block.y * BM, col0 = block.x * BN;
  placeWarp();
  placeKTile(row0, col0);
  uint steps = (problem.K + BK - 1u) / BK;  // K >= 1: at least one
  if (interiorKTiles()) {
    hoistedKLoop(row0, col0, steps, true);
  } else {
    hoistedKLoop(row0, col0, steps, false);
  }
  storeWarpTile(row0, col0);
}""",
             f"""layout(set = 0, binding = 5, std430) coherent buffer ProbeQueue {{ uint nextTile; uint finished; }} probeQueue;
shared uvec4 probeTaken;
void main() {{
  uint workgroups = min({groups}u, gl_NumWorkGroups.x * gl_NumWorkGroups.y);
  if (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x >= workgroups) return;
  uint colTiles = (problem.N + BN - 1u) / BN, tiles = ((problem.M + BM - 1u) / BM) * colTiles;
  uint steps = (problem.K + BK - 1u) / BK;
  for (;;) {{
    if (gl_LocalInvocationIndex == 0u) probeTaken.x = atomicAdd(probeQueue.nextTile, 1u);
    barrier();
    uint index = probeTaken.x;
    barrier();
    if (index >= tiles) break;
    uint row0 = (index / colTiles) * BM, col0 = (index % colTiles) * BN;
    placeWarp();
    placeKTile(row0, col0);
    if (interiorKTiles()) {{
      hoistedKLoop(row0, col0, steps, true);
    }} else {{
      hoistedKLoop(row0, col0, steps, false);
    }}
    storeWarpTile(row0, col0);
  }}
  if (gl_LocalInvocationIndex == 0u) {{
    memoryBarrierBuffer();
    if (atomicAdd(probeQueue.finished, 1u) == workgroups - 1u) {{
      memoryBarrierBuffer();
      atomicExchange(probeQueue.nextTile, 0u);
      atomicExchange(probeQueue.finished, 0u);
    }}
  }}
}}""")]


K12 = "k12_hoisted.comp"
K13 = "k13_mma.comp"
S10 = "s10_mma_joint_64x32.comp"
VARIANTS = {
    "s10": (S10, [], "S10's source, built here (run it with --kernel mma-joint-64x32)"),
    "k12": (K12, [], "K12's source, built here (run it with --kernel hoisted --dtype fp32)"),
    "k12_noglobal": (K12, K12_NO_GLOBAL, "K12 with no global loads in its loop"),
    "k12_persistent132": (K12, k12_persistent(132), "K12 persistent, 132 workgroups (an H100's SMs: its 128 x 256 tile)"),
    "k12_persistent264": (K12, k12_persistent(264), "K12 persistent, 264 workgroups (two an SM: 128 x 128, @128x128x8/64x64/8x4/128)"),
    # name: (shader, edits, what it shows)
    "k13": (K13, [], "the catalogue's source, built here: must equal and time as the embedded shader"),
    "k13_bcol": (K13, [B_COLUMN_MAJOR], "B's pieces loaded column-major, as from a stage holding B^T"),
    "k13_noglobal": (K13, NO_GLOBAL, "no global loads: the ring stores constants"),
    "k13_bcol_noglobal": (K13, [B_COLUMN_MAJOR] + NO_GLOBAL, "both"),
    "k13_nostage": (K13, NO_STAGE, "no global loads, no stage stores: loads from shared memory, MMAs, barriers"),
    "k13_bcol_nostage": (K13, [B_COLUMN_MAJOR] + NO_STAGE, "the same with B column-major"),
    "k13_bcol_nostage_nobarrier": (K13, [B_COLUMN_MAJOR] + NO_STAGE + NO_BARRIER, "shared loads and MMAs alone"),
    "k13_registers": (K13, NO_STAGE + FROM_REGISTERS, "MMAs from registers and a barrier per step"),
    "k13_registers_nobarrier": (K13, NO_STAGE + FROM_REGISTERS + NO_BARRIER, "MMAs from registers alone"),
    "k13_sametile": (K13, SAME_TILE, "every workgroup fetches the same 2 MiB of A and B"),
    "k13_plainloads": (K13, PLAIN_LOADS, "A and B not declared readonly"),
    "k13_residency": (K13, RESIDENCY, "workgroups running at once"),
    **{f"k13_residency_pad{pad}": (K13, padded(pad), f"workgroups running at once with {pad} more bytes of shared memory")
       for pad in (1024, 2048, 3072, 4096, 6144, 8192)},
}


def build(name, out):
    shader, edits, _ = VARIANTS[name]
    with tempfile.TemporaryDirectory() as work:
        tree = os.path.join(work, "kernels")
        shutil.copytree(os.path.join(ROOT, "kernels"), tree)
        for file, old, new in edits:
            path = os.path.join(tree, file)
            text = open(path).read()
            if text.count(old) != 1:
                sys.exit(f"{name}: the edit of {file} matches {text.count(old)} times, not once: {old[:60]!r}")
            open(path, "w").write(text.replace(old, new))
        subprocess.run(["glslangValidator", "--target-env", "vulkan1.1", "-o", os.path.join(out, name + ".spv"),
                        os.path.join(tree, shader)], check=True, stdout=subprocess.DEVNULL)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    names = sys.argv[2:] or list(VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    os.makedirs(out, exist_ok=True)
    for name in names:
        build(name, out)
        print(f"{name}: {VARIANTS[name][2]}")


if __name__ == "__main__":
    main()
