// The warp lane grid both twins derive from a tile shape, the shape checks a backend runs
// before it builds a kernel from a shape that is not the catalogue's, and the tensor cores'
// fragment layouts (mma_layout.hpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "core/model/error.hpp"
#include "core/measure/speed_model.hpp"
#include "core/model/mma_layout.hpp"
#include "core/model/tile_layout.hpp"

using namespace tileskip;

// What a row must hang together with is checked at compile time (catalogue.hpp); this names the
// row and the reason when a row built at run time (a test's variant) does not.
TEST(Catalogue, EveryRowsStructureHangsTogetherAndEveryKernelHasASpeedDefault) {
  for (const KernelInfo& k : kCatalogue) {
    const char* why = structureContradiction(k);
    EXPECT_EQ(why, nullptr) << k.id << ": " << why;
    // Without a row `auto` would take the kernel as fast as the dense reference.
    EXPECT_NE(SpeedModel::uncalibrated().coefficients(k.id), nullptr) << k.id << " has no row in speed_model.cpp kDefaults";
  }
  KernelInfo contradicting = kernelInfo("a-warp");
  contradicting.structure.scheduling = Scheduling::TilePerBlock;
  EXPECT_NE(structureContradiction(contradicting), nullptr);
  // A tensor-core warp issues an MMA step whole: its tile may not straddle two pattern tiles.
  KernelInfo straddling = kernelInfo("mma-joint-64x32");
  EXPECT_EQ(structureContradiction(straddling), nullptr);
  straddling.aGranularity = 32;
  EXPECT_NE(structureContradiction(straddling), nullptr);
  KernelInfo unlisted = kernelInfo("mma-joint-64x32");
  unlisted.structure.kBlockList = 0;
  EXPECT_NE(structureContradiction(unlisted), nullptr) << "a warp-uniform skip gathers a K-block list";
  // A register-fed ring stages one K-tile fewer than it holds (the GLSL twin's glslRingStages), and
  // its shader needs two stages.
  KernelInfo shortRing = kernelInfo("mma");
  shortRing.structure.ringStages = 2;
  EXPECT_NE(structureContradiction(shortRing), nullptr);
  // The copy-engine ring: its K-tile is one swizzled row, a warpgroup's tile one m64n256 MMA, one
  // producer warpgroup beside the consumers, a tile per block; its skip takes whole pattern tiles.
  for (auto broken : {+[](KernelInfo& k) { k.tile.BK = 32; }, +[](KernelInfo& k) { k.tile.WN = 128; },
                      +[](KernelInfo& k) { k.tile.threads = 256; },
                      +[](KernelInfo& k) { k.structure.scheduling = Scheduling::Persistent; },
                      +[](KernelInfo& k) { k.structure.loop = MainLoop::StageRing; }}) {
    KernelInfo wgmma = kernelInfo("wgmma");
    EXPECT_EQ(structureContradiction(wgmma), nullptr);
    broken(wgmma);
    EXPECT_NE(structureContradiction(wgmma), nullptr);
  }
  for (auto broken : {+[](KernelInfo& k) { k.aGranularity = 32; }, +[](KernelInfo& k) { k.bGranularity = 96; },
                      +[](KernelInfo& k) { k.structure.kBlockList = 8192 - 8; }}) {
    KernelInfo joint = kernelInfo("wgmma-joint-64x64");
    EXPECT_EQ(structureContradiction(joint), nullptr);
    broken(joint);
    EXPECT_NE(structureContradiction(joint), nullptr);
  }
  // Inputs: the tensor-core mappings take both 16-bit types, and may take tf32 too but for the
  // warpgroup skipping row (built for 16-bit K-tiles); fp32 is the SIMT rows'.
  for (auto broken : {+[](KernelInfo& k) { k.structure.dtypes = DTypeSet::of(DType::Fp16); },
                      +[](KernelInfo& k) { k.structure.dtypes = DTypeSet::of(DType::Bf16, DType::Tf32); },
                      +[](KernelInfo& k) { k.structure.dtypes = kEveryInput; }}) {
    for (std::string_view id : {"mma", "mma-joint-64x32", "wgmma", "wgmma-joint-64x64"}) {
      KernelInfo tensor = kernelInfo(id);
      EXPECT_EQ(structureContradiction(tensor), nullptr) << id;
      broken(tensor);
      EXPECT_NE(structureContradiction(tensor), nullptr) << id;
    }
  }
  for (std::string_view id : {"mma", "mma-joint-64x32", "wgmma"}) {
    KernelInfo halves = kernelInfo(id);
    EXPECT_TRUE(halves.takes(DType::Tf32)) << id;
    halves.structure.dtypes = kHalfInputs;
    EXPECT_EQ(structureContradiction(halves), nullptr) << id << ": tf32 is optional";
  }
  KernelInfo jointTf32 = kernelInfo("wgmma-joint-64x64");
  jointTf32.structure.dtypes = kHalfInputs.with(DType::Tf32);
  EXPECT_NE(structureContradiction(jointTf32), nullptr) << "the warpgroup skipping kernel takes no tf32";
  KernelInfo tf32Only = kernelInfo("wgmma");
  tf32Only.structure.dtypes = DTypeSet::of(DType::Tf32);
  EXPECT_NE(structureContradiction(tf32Only), nullptr) << "a tensor-core row takes both 16-bit types";
  KernelInfo simtTf32 = kernelInfo("pipelined");
  simtTf32.structure.dtypes = kFp32Inputs.with(DType::Tf32);
  EXPECT_NE(structureContradiction(simtTf32), nullptr) << "the SIMT kernels take fp32 alone";
  EXPECT_FALSE(kernelInfo("wgmma").hasGlslTwin());
  EXPECT_TRUE(kernelInfo("mma").hasGlslTwin());
  EXPECT_FALSE(kernelInfo("cublas").hasGlslTwin());
}

// The naming rule is a static_assert too; this shows each part of it catching a row that breaks it.
TEST(Catalogue, NumbersAndStemsFollowTheRowAndSortInReadingOrder) {
  for (std::size_t i = 0; i < kCatalogue.size(); ++i) {
    const KernelInfo& k = kCatalogue[i];
    const char* why = i == 0 ? namingContradiction(k) : namingContradiction(k, kCatalogue[i - 1]);
    EXPECT_EQ(why, nullptr) << k.id << ": " << why;
  }
  const KernelInfo& warptile = kernelInfo("warptile");
  const KernelInfo& joint = kernelInfo("joint-8x32");
  EXPECT_EQ(progressionNumber(warptile), 10);
  EXPECT_EQ(progressionNumber(joint), 7);
  KernelInfo wrongLetter = joint;
  wrongLetter.number = "K7";
  EXPECT_NE(namingContradiction(wrongLetter), nullptr);
  KernelInfo wrongStem = joint;
  wrongStem.stem = "s07_joint_32x32";
  EXPECT_NE(namingContradiction(wrongStem), nullptr);
  KernelInfo unpadded = joint;
  unpadded.stem = "s7_joint_8x32";
  EXPECT_NE(namingContradiction(unpadded), nullptr);
  EXPECT_NE(namingContradiction(kernelInfo("joint-64x32"), joint), nullptr) << "S5 after S7";
  EXPECT_NE(namingContradiction(warptile, joint), nullptr) << "a dense kernel after a skipping one";
  EXPECT_EQ(namingContradiction(joint, warptile), nullptr);
}

TEST(TileLayout, EveryCatalogueTwinHasAConsistentShape) {
  for (const KernelInfo& k : twinKernels()) {
    EXPECT_EQ(tileShapeProblem(k), std::nullopt) << k.id;
    if (!k.hasWarpTile()) continue;
    WarpLayout w = warpLayout(k);
    EXPECT_EQ(w.laneRows * w.laneCols, kWarpLanes) << k.id;
    EXPECT_EQ(w.iterM * w.subM, k.tile.WM) << k.id;
    EXPECT_EQ(w.iterN * w.subN, k.tile.WN) << k.id;
  }
}

// Each mapping's rule gives every output of the block tile to exactly one thread.
TEST(LaneMap, EveryMappingCoversTheBlockTileOnce) {
  for (const KernelInfo& k : twinKernels()) {
    std::vector<int> owners = outputOwners(k);
    EXPECT_EQ(std::count(owners.begin(), owners.end(), -1), 0) << k.id;
  }
  // K1 walks down columns, K2 along rows; K5 gives a thread a TM x TN block; a warp tile's lane
  // 9 is in lane row 1, lane column 1 of each sub-tile.
  EXPECT_EQ(threadOutputs(kernelInfo("naive"), 1).front().row, 1);
  EXPECT_EQ(threadOutputs(kernelInfo("coalesced"), 1).front().col, 1);
  const KernelInfo& k5 = kernelInfo("blocktile2d");
  OutputRect r = threadOutputs(k5, k5.tile.BN / k5.tile.TN + 1).front();
  EXPECT_EQ(r.row, k5.tile.TM);
  EXPECT_EQ(r.col, k5.tile.TN);
  const KernelInfo& k11 = kernelInfo("pipelined");
  std::vector<OutputRect> lane9 = threadOutputs(k11, 9);
  EXPECT_EQ(lane9.size(), static_cast<std::size_t>(warpLayout(k11).iterM * warpLayout(k11).iterN));
  EXPECT_EQ(lane9.front().row, k11.tile.TM);
  EXPECT_EQ(lane9.front().col, k11.tile.TN);
}

TEST(TileLayout, FourByEightLanesWalkTheWarpTile) {
  // warptile: a 64x64 warp tile in 32x32 sub-tiles, 2 x 2 of them: 16 x 8 outputs per lane.
  WarpLayout w = warpLayout(kernelInfo("warptile"));
  EXPECT_EQ(w.laneRows, 4);
  EXPECT_EQ(w.laneCols, 8);
  EXPECT_EQ(w.subM, 32);
  EXPECT_EQ(w.subN, 32);
  EXPECT_EQ(w.iterM, 2);
  EXPECT_EQ(w.iterN, 2);
  // pipelined and the skipping kernels built on it walk the same warp tile; joint-32x32's 32-row
  // A-pattern tiles are its sub-tile rows.
  EXPECT_EQ(warpLayout(kernelInfo("pipelined")).iterM, 2);
  EXPECT_EQ(warpLayout(kernelInfo("pipelined")).iterN, 2);
  EXPECT_EQ(warpLayout(kernelInfo("joint-32x32")).subM, kernelInfo("joint-32x32").aGranularity);
}

TEST(TileLayout, SubTilesFollowAFinerAPattern) {
  // joint-8x32: the A-pattern is at 8 rows inside a 64-row warp tile, so a sub-tile is 8 rows
  // and the warp walks 8 of them, one pattern byte each.
  WarpLayout w = warpLayout(kernelInfo("joint-8x32"));
  EXPECT_EQ(w.subM, 8);
  EXPECT_EQ(w.iterM, 8);
  EXPECT_EQ(w.subN, 32);
}

TEST(TileLayout, RefusesShapesThatDoNotTile) {
  KernelInfo k = kernelInfo("warptile");
  k.tile.threads = 256;  // 4 warp tiles but 8 warps
  std::optional<std::string> why = tileShapeProblem(k);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("threads = 32"), std::string::npos) << *why;

  KernelInfo skipping = kernelInfo("joint-32x32");
  skipping.tile.BK = 12;
  ASSERT_TRUE(tileShapeProblem(skipping).has_value());

  KernelInfo straddling = kernelInfo("joint-8x32");
  straddling.tile.TM = 4;  // 16-row sub-tiles would straddle the 8-row A-pattern tiles
  EXPECT_THROW(warpLayout(straddling), InputError);
  EXPECT_TRUE(tileShapeProblem(straddling).has_value());
}

TEST(TileNotation, EveryCatalogueTileRoundTripsAndOtherTextIsNoTile) {
  EXPECT_EQ(tileNotation(kernelInfo("pipelined").tile), "128x128x8/64x64/8x4/128");
  EXPECT_EQ(tileNotation(kernelInfo("vectorized").tile), "128x128x8/0x0/8x8/256");
  for (const KernelInfo& k : twinKernels()) {
    std::optional<TileShape> back = parseTileNotation(tileNotation(k.tile));
    ASSERT_TRUE(back.has_value()) << k.id;
    EXPECT_EQ(tileNotation(*back), tileNotation(k.tile)) << k.id;
    EXPECT_EQ(back->threads, k.tile.threads) << k.id;
  }
  for (const char* text : {"", "128", "128x128x8/64x64/8x4", "128x128x8/64x64/8x4/", "128x128x8/64x64/8x4/128/1", "128x128x8/64x64/8x4/128 ",
                           "-128x128x8/64x64/8x4/128", "128x128x8/64x64/8x4/99999999999", "128x128/8/64x64/8x4/128", "axbxc/dxe/fxg/h"}) {
    EXPECT_EQ(parseTileNotation(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(MmaLayout, EveryValueOfEveryOperandSitsInExactlyOneLane) {
  for (DType type : {DType::Tf32, DType::Fp16, DType::Bf16}) {
    SCOPED_TRACE(dtypeName(type));
    const int k = type == DType::Tf32 ? 8 : 16;
    struct Shape {
      MmaOperand operand;
      int rows, cols, registers;
    };
    for (Shape shape : {Shape{MmaOperand::A, 16, k, 4}, Shape{MmaOperand::B, k, 8, 2}, Shape{MmaOperand::C, 16, 8, 4}}) {
      std::vector<int> seen(static_cast<std::size_t>(shape.rows * shape.cols), 0);
      for (int lane = 0; lane < kWarpLanes; ++lane) {
        const std::vector<FragmentValue> values = mmaFragment(type, shape.operand, lane);
        // Every input fills whole 32-bit registers: four of A, two of B, four accumulators.
        EXPECT_EQ(static_cast<int>(values.size()), shape.registers * valuesPerRegister(type, shape.operand));
        for (const FragmentValue& v : values) {
          ASSERT_TRUE(v.row >= 0 && v.row < shape.rows && v.col >= 0 && v.col < shape.cols) << v.row << ", " << v.col;
          ++seen[static_cast<std::size_t>(v.row * shape.cols + v.col)];
        }
      }
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    }
  }
}

TEST(MmaLayout, LanesHoldWhatThePtxIsaTablesGiveThem) {
  auto pairs = [](const std::vector<FragmentValue>& values) {
    std::vector<std::pair<int, int>> out;
    for (const FragmentValue& v : values) out.emplace_back(v.row, v.col);
    return out;
  };
  using P = std::vector<std::pair<int, int>>;
  // Lane 5: g = 1, t = 1. A register holds two neighbours along a row of A, along a column of B.
  EXPECT_EQ(pairs(mmaFragment(DType::Fp16, MmaOperand::A, 5)), (P{{1, 2}, {1, 3}, {9, 2}, {9, 3}, {1, 10}, {1, 11}, {9, 10}, {9, 11}}));
  EXPECT_EQ(pairs(mmaFragment(DType::Bf16, MmaOperand::B, 5)), (P{{2, 1}, {3, 1}, {10, 1}, {11, 1}}));
  EXPECT_EQ(pairs(mmaFragment(DType::Tf32, MmaOperand::A, 6)), (P{{1, 2}, {9, 2}, {1, 6}, {9, 6}}));
  EXPECT_EQ(pairs(mmaFragment(DType::Tf32, MmaOperand::B, 6)), (P{{2, 1}, {6, 1}}));
  EXPECT_EQ(pairs(mmaFragment(DType::Tf32, MmaOperand::C, 31)), (P{{7, 6}, {7, 7}, {15, 6}, {15, 7}}));
  EXPECT_THROW(mmaFragment(DType::Fp16, MmaOperand::A, 32), InputError);
  EXPECT_THROW(mmaFragment(DType::Fp32, MmaOperand::A, 0), InputError);
}

TEST(MmaLayout, TheTensorCoreRowsGiveEachLaneItsCFragmentOfEveryTile) {
  for (std::string_view id : {"mma", "wgmma"}) {
    const KernelInfo& kernel = kernelInfo(id);
    // The first thread that owns outputs: warp 0 of the first consumer warpgroup, or of the block.
    const int first = kernel.structure.mapping == ThreadMapping::WarpgroupMmaTiles ? kWarpgroupThreads : 0;
    for (int lane = 0; lane < kWarpLanes; ++lane) {
      std::vector<std::pair<int, int>> fromRects, fromFragment;
      for (const OutputRect& r : threadOutputs(kernel, first + lane)) {
        for (int i = 0; i < r.rows; ++i) {
          for (int j = 0; j < r.cols; ++j) {
            if (r.row + i < kMmaTileRows && r.col + j < kMmaTileCols) fromRects.emplace_back(r.row + i, r.col + j);
          }
        }
      }
      for (const FragmentValue& v : mmaFragment(DType::Bf16, MmaOperand::C, lane)) fromFragment.emplace_back(v.row, v.col);
      EXPECT_EQ(fromRects, fromFragment) << id << " lane " << lane;
    }
  }
}

TEST(MmaLayout, TheInstructionFollowsTheRowAndTheInputs) {
  EXPECT_EQ(mmaInstruction(kernelInfo("mma"), DType::Fp16).text(), "16x8x16");
  EXPECT_EQ(mmaInstruction(kernelInfo("mma-joint-64x32"), DType::Tf32).text(), "16x8x8");
  const MmaInstruction hopper = mmaInstruction(kernelInfo("wgmma"), DType::Bf16);
  EXPECT_EQ(hopper.text(), "64x256x16");
  EXPECT_TRUE(hopper.warpgroup);
  EXPECT_EQ(mmaInstruction(kernelInfo("wgmma"), DType::Tf32).text(), "64x256x8");
  EXPECT_EQ(kernelInfo("wgmma").kTileDepth(DType::Tf32), kernelInfo("wgmma").tile.BK / 2);  // 128-byte rows of words
  EXPECT_EQ(kernelInfo("mma").kTileDepth(DType::Tf32), kernelInfo("mma").tile.BK);
  EXPECT_THROW(mmaInstruction(kernelInfo("pipelined"), DType::Fp32), InputError);
  EXPECT_THROW(mmaInstruction(kernelInfo("wgmma-joint-64x64"), DType::Tf32), InputError);  // S11 takes no tf32
}
