// The Vulkan backend beyond the shared kernel suite: device selection and limits as plain
// functions, and on the device (lavapipe in CI) the embedded SPIR-V, patterns at every
// granularity, refused configurations, the validation messenger, and a too-eager skip that the
// verify suite must catch. Device tests skip where no Vulkan device exists, unless
// TILESKIP_REQUIRE_BACKENDS names vulkan.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "backends/vulkan/device_selection.hpp"
#include "backends/vulkan/embedded_spirv.hpp"
#include "backends/vulkan/limits.hpp"
#include "backends/vulkan/pipeline_statistics.hpp"
#include "backends/vulkan/tile_overrides.hpp"
#include "backends/vulkan/vulkan_backend.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/io/matrix_io.hpp"
#include "core/model/tile_layout.hpp"
#include "core/measure/inspect.hpp"
#include "core/measure/kernel_selection.hpp"
#include "core/measure/tune.hpp"
#include "core/measure/verify_suite.hpp"
#include "core/process/sanitizers.hpp"
#include "compaction_case.hpp"
#include "run_command.hpp"
#include "test_environment.hpp"
#include "scoped_env.hpp"

using namespace tileskip;
using namespace tileskip::vk;
using tileskip::testing::ScopedEnv;

namespace {

constexpr std::uint32_t kVulkan13 = (1u << 22) | (3u << 12);

DeviceCandidate device(std::string name, DeviceKind kind) {
  return {std::move(name), kind, kVulkan13, true, true, true, true};
}

// One backend per process and validation setting: opening a device costs more than a test.
VulkanBackend* openedBackend(bool validation, std::string& whyNot) {
  static std::unique_ptr<VulkanBackend> backends[2];
  static std::string reasons[2];
  static bool tried[2] = {false, false};
  int slot = validation ? 1 : 0;
  if (!tried[slot]) {
    tried[slot] = true;
    addEmbeddedShaders(testingShaders());  // the testing_ builds some tests run, which the product does not embed
    try {
      backends[slot] = std::make_unique<VulkanBackend>(BackendOptions{.deviceIndex = -1, .validation = validation});
    } catch (const std::exception& e) {
      reasons[slot] = e.what();
    }
  }
  whyNot = reasons[slot];
  return backends[slot].get();
}

#define VULKAN_OR_SKIP(backend, validation)                                                        \
  std::string whyNot_;                                                                             \
  VulkanBackend* backend##Pointer_ = openedBackend(validation, whyNot_);                           \
  if (backend##Pointer_ == nullptr) {                                                              \
    if (tileskip::testing::backendRequired("vulkan")) FAIL() << "vulkan is required here but unavailable: " << whyNot_;        \
    GTEST_SKIP() << "vulkan unavailable: " << whyNot_;                                             \
  }                                                                                                \
  VulkanBackend& backend = *backend##Pointer_

ComputeLimits lavapipeLimits() {
  ComputeLimits l;
  l.maxSharedBytes = 32 * 1024;
  l.maxInvocations = 1024;
  l.maxWorkgroupSizeX = 1024;
  l.maxGroupCountX = l.maxGroupCountY = 65535;
  l.maxStorageBufferRange = 128ull << 20;
  l.maxAllocationBytes = 2ull << 30;
  l.subgroupSize = l.minSubgroupSize = l.maxSubgroupSize = 8;
  l.maxWorkgroupSubgroups = 32;
  l.pinSubgroupSize = true;
  l.fullSubgroups = true;
  return l;
}

std::vector<VerifyResult> verifyOn(Backend& backend, const KernelInfo& kernel, bool quick) {
  return runVerify(backend, {&kernel}, verifyCases(quick));
}

// A tensor-core kernel as a device without cooperative matrices runs it (lavapipe in CI): its
// emulated build (testing_emulated_<stem>), with the catalogue's ring, whose two GLSL stages fit
// lavapipe's 32 KiB with S10's whole K-block list (VulkanLimits checks it).
KernelInfo emulatedTensorCoreKernel(const KernelInfo& kernel) {
  static std::deque<std::string> stems;  // a KernelInfo holds a view of its stem
  KernelInfo emulated = kernel;
  emulated.stem = stems.emplace_back("testing_emulated_" + std::string(kernel.stem));
  return emulated;
}

// The catalogue kernels that have a GLSL twin: all but the Hopper ones (KernelInfo::needsHopper).
std::vector<const KernelInfo*> glslTwins() {
  std::vector<const KernelInfo*> kernels;
  for (const KernelInfo& k : twinKernels()) {
    if (k.hasGlslTwin()) kernels.push_back(&k);
  }
  return kernels;
}

std::vector<const KernelInfo*> tensorCoreKernels() {
  std::vector<const KernelInfo*> kernels;
  for (const KernelInfo* k : glslTwins()) {
    if (k->usesTensorCores()) kernels.push_back(k);
  }
  return kernels;
}

ComputeLimits h200Limits() {
  ComputeLimits l = lavapipeLimits();
  l.maxSharedBytes = 48 * 1024;
  l.maxGroupCountX = 0x7FFFFFFF;
  l.subgroupSize = l.minSubgroupSize = l.maxSubgroupSize = 32;
  l.multiprocessors = 132;
  return l;
}


// TILESKIP_VULKAN_PERSISTENT_WORKGROUPS for the life of the object.
class PersistentWorkgroups : public ScopedEnv {
 public:
  explicit PersistentWorkgroups(const std::string& value) : ScopedEnv("TILESKIP_VULKAN_PERSISTENT_WORKGROUPS", value) {}
};

ProblemData segments(int m, int n, int k, double density, std::uint64_t seed) {
  return {generate("segments", Operand::A, m, k, density, seed), generate("segments", Operand::B, k, n, density, seed + 1)};
}

}  // namespace

// ---- Device selection: a plain function of what devices report.

TEST(VulkanDeviceSelection, PrefersADiscreteGpuThenIntegratedThenTheCpu) {
  std::vector<DeviceCandidate> devices = {device("llvmpipe", DeviceKind::Cpu), device("Intel UHD", DeviceKind::Integrated),
                                          device("NVIDIA H200", DeviceKind::Discrete)};
  EXPECT_EQ(chooseDevice(devices, -1), 2u);
  devices.pop_back();
  EXPECT_EQ(chooseDevice(devices, -1), 1u);
  devices.pop_back();
  EXPECT_EQ(chooseDevice(devices, -1), 0u);
}

TEST(VulkanDeviceSelection, TheFirstOfEqualDevicesWins) {
  std::vector<DeviceCandidate> devices = {device("GPU 0", DeviceKind::Discrete), device("GPU 1", DeviceKind::Discrete)};
  EXPECT_EQ(chooseDevice(devices, -1), 0u);
}

TEST(VulkanDeviceSelection, ARequestedIndexWinsOverPreference) {
  std::vector<DeviceCandidate> devices = {device("NVIDIA H200", DeviceKind::Discrete), device("llvmpipe", DeviceKind::Cpu)};
  EXPECT_EQ(chooseDevice(devices, 1), 1u);
}

TEST(VulkanDeviceSelection, AnIndexThatDoesNotExistIsBadInputListingTheDevices) {
  std::vector<DeviceCandidate> devices = {device("llvmpipe", DeviceKind::Cpu)};
  try {
    chooseDevice(devices, 3);
    FAIL() << "accepted --device 3";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("0: llvmpipe"), std::string::npos) << e.what();
  }
}

TEST(VulkanDeviceSelection, SkipsDevicesWithoutSubgroupBallotAndSaysWhy) {
  DeviceCandidate noBallot = device("old GPU", DeviceKind::Discrete);
  noBallot.subgroupBallot = false;
  std::vector<DeviceCandidate> devices = {noBallot, device("llvmpipe", DeviceKind::Cpu)};
  EXPECT_EQ(chooseDevice(devices, -1), 1u);
  try {
    chooseDevice(devices, 0);
    FAIL() << "accepted a device without ballot";
  } catch (const UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("ballot"), std::string::npos) << e.what();
  }
}

TEST(VulkanDeviceSelection, NoSuitableDeviceNamesEveryDeviceAndWhatItLacks) {
  DeviceCandidate old = device("Vulkan 1.0 GPU", DeviceKind::Discrete);
  old.apiVersion = 1u << 22;
  DeviceCandidate noCompute = device("display-only", DeviceKind::Integrated);
  noCompute.computeQueue = false;
  std::vector<DeviceCandidate> devices = {old, noCompute};
  try {
    chooseDevice(devices, -1);
    FAIL() << "chose an unsuitable device";
  } catch (const UnavailableError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("Vulkan 1.0 GPU"), std::string::npos) << text;
    EXPECT_NE(text.find("1.1"), std::string::npos) << text;
    EXPECT_NE(text.find("no compute queue"), std::string::npos) << text;
  }
  EXPECT_THROW(chooseDevice({}, -1), UnavailableError);
}

// ---- Limits as plain functions.

TEST(VulkanLimits, EveryCatalogueKernelFitsLavapipeAndNvidia) {
  ComputeLimits lavapipe = lavapipeLimits();
  ComputeLimits nvidia = lavapipe;
  nvidia.maxSharedBytes = 48 * 1024;
  for (const KernelInfo* twin : glslTwins()) {
    const KernelInfo& k = *twin;
    const KernelInfo onLavapipe = k.usesTensorCores() ? emulatedTensorCoreKernel(k) : k;
    EXPECT_EQ(launchProblem(onLavapipe, lavapipe), std::nullopt) << k.id;
    EXPECT_EQ(launchProblem(k, nvidia), std::nullopt) << k.id;

  }
  // The tensor-core kernels' rings of three K-tiles stage two of them (the others wait in
  // registers), which fits lavapipe with S10's whole K-block list.
  const KernelInfo s10 = emulatedTensorCoreKernel(kernelInfo("mma-joint-64x32"));
  EXPECT_EQ(s10.structure.ringStages, 3);
  EXPECT_EQ(glslRingStages(s10), 2);
  EXPECT_EQ(kBlockListLength(s10, lavapipe.maxSharedBytes), 1024u);
  EXPECT_EQ(emulatedTensorCoreKernel(kernelInfo("mma")).structure.ringStages, 3);
  // K13 natively on NVIDIA: two stages (C passes through them): 21 KiB, which lets the driver run two
  // workgroups on an SM (lab/25-vulkan-k13-driver).
  EXPECT_EQ(kernelSharedBytes(kernelInfo("mma")), 2u * (128 * 24 + 16 * 136) * 2);
  // S10: two stages, the list with its subgroup totals and two 16-byte scalars, and a kept-steps
  // word per listed K-tile (two K-blocks each).
  const KernelInfo& native = kernelInfo("mma-joint-64x32");
  constexpr std::uint64_t kNative = 2u * (128 * 24 + 16 * 136) * 2 + (1024 + 256 + 8) * 4 + 512 * 4;
  EXPECT_EQ(kernelSharedBytes(native, 1024), kNative);
  EXPECT_EQ(kBlockListLength(native, nvidia.maxSharedBytes), 1024u);
  // 24 bytes less: the list and its kept steps shrink together (1016 entries, 508 words).
  EXPECT_EQ(kBlockListLength(native, kNative - 24), 1016u);
}

TEST(VulkanLimits, ATileBeyondSharedMemoryOrInvocationsIsRefusedWithTheNumbers) {
  KernelInfo big = kernelInfo("warptile");
  big.tile.BK = 64;  // 64 x (128 + 4) + 64 x 128 floats: 65 KiB
  EXPECT_EQ(kernelSharedBytes(big), (64u * 132u + 64u * 128u) * 4u);
  std::optional<std::string> why = launchProblem(big, lavapipeLimits());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("65 KiB"), std::string::npos) << *why;
  EXPECT_NE(why->find("32 KiB"), std::string::npos) << *why;
  EXPECT_NE(why->find("maxComputeSharedMemorySize"), std::string::npos) << *why;

  KernelInfo wide = kernelInfo("smem");
  wide.tile.BM = wide.tile.BN = 64;
  wide.tile.BK = 8;
  wide.tile.threads = 4096;
  why = launchProblem(wide, lavapipeLimits());
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("1024 invocations"), std::string::npos) << *why;
}

TEST(VulkanLimits, PipelinedKernelsDeclareTwoStagesAndThePersistentOnesAKBlockList) {
  // Two stages of a 128 x 8 A tile padded to 132 floats a row and an 8 x 128 B tile.
  constexpr std::uint64_t kStages = 2 * (8 * 132 + 8 * 128) * 4;
  EXPECT_EQ(kernelSharedBytes(kernelInfo("pipelined")), kStages);
  for (const char* id : {"a-warp", "b-warp", "joint-64x32", "joint-32x32", "joint-8x32"}) {
    EXPECT_TRUE(kernelInfo(id).persistent()) << id;
    // 1024 list entries, one total per invocation (at most one subgroup each), the taken tile
    // and the dense-block vote.
    EXPECT_EQ(kernelSharedBytes(kernelInfo(id)), kStages + (1024 + 128 + 2 * 4) * 4) << id;
    EXPECT_EQ(kBlockListLength(kernelInfo(id), lavapipeLimits().maxSharedBytes), 1024u) << id;
  }
  // The one-warp kernels: 64 x 8 and 8 x 64 stages, and the catalogue's shorter list of 512.
  for (const char* id : {"warp-joint-64x64", "warp-joint-32x32"}) {
    EXPECT_EQ(kernelSharedBytes(kernelInfo(id)), 2u * (8 * 68 + 8 * 64) * 4 + (512 + 32 + 2 * 4) * 4) << id;
    EXPECT_EQ(kBlockListLength(kernelInfo(id), lavapipeLimits().maxSharedBytes), 512u) << id;
  }
  // One padded stage from K6 on (K10's is 16 deep), one plain stage before it, none in K1 and K2.
  for (const char* id : {"a-row", "b-group8", "vectorized"}) EXPECT_EQ(kernelSharedBytes(kernelInfo(id)), kStages / 2) << id;
  EXPECT_EQ(kernelSharedBytes(kernelInfo("warptile")), (16u * 132 + 16 * 128) * 4);
  EXPECT_EQ(kernelSharedBytes(kernelInfo("smem")), 2u * 32 * 32 * 4);
  EXPECT_EQ(kernelSharedBytes(kernelInfo("naive")), 0u);
  EXPECT_EQ(kBlockListLength(kernelInfo("pipelined"), 48 * 1024), 0u);
  // K12: the same two padded stages with an 8 x 256 B tile, 24.25 KiB: within lavapipe's 32.
  EXPECT_EQ(kernelSharedBytes(kernelInfo("hoisted")), 2u * (8 * 132 + 8 * 256) * 4);
  EXPECT_EQ(kBlockListLength(kernelInfo("hoisted"), 48 * 1024), 0u);
}

TEST(VulkanLimits, AShorterKBlockListFitsADeviceWithLessSharedMemoryUntilNoneDoes) {
  const KernelInfo& joint = kernelInfo("joint-8x32");
  constexpr std::uint64_t kWithoutList = 2 * (8 * 132 + 8 * 128) * 4 + (128 + 2 * 4) * 4;
  ComputeLimits small = lavapipeLimits();
  small.maxSharedBytes = 20 * 1024;  // 20480 - 17184 = 3296 bytes: 824 entries, in whole words
  EXPECT_EQ(kBlockListLength(joint, small.maxSharedBytes), 824u);
  EXPECT_EQ(launchProblem(joint, small), std::nullopt);
  small.maxSharedBytes = kWithoutList + 4 * (kMinKBlockListLength - 1);
  EXPECT_EQ(kBlockListLength(joint, small.maxSharedBytes), 0u);
  std::optional<std::string> why = launchProblem(joint, small);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("K-block list of 128 entries"), std::string::npos) << *why;
  EXPECT_NE(why->find("maxComputeSharedMemorySize"), std::string::npos) << *why;
  small.maxSharedBytes = 16 * 1024;  // Vulkan's minimum: not even the two stages (16640 bytes) fit
  why = launchProblem(kernelInfo("pipelined"), small);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("16.2 KiB"), std::string::npos) << *why;
}

TEST(ShapeRules, PipelinedShapesMustSplitIntoVectorsAndHoldWholeSubTilesInAPatternTile) {
  for (const KernelInfo* k : glslTwins()) EXPECT_EQ(tileShapeProblem(*k), std::nullopt) << k->id;
  KernelInfo uneven = kernelInfo("pipelined");
  uneven.tile = {64, 64, 8, 32, 32, 4, 4, 128};  // 128 vectors of A and of B: one each
  EXPECT_EQ(tileShapeProblem(uneven), std::nullopt);
  uneven.tile = {32, 32, 8, 32, 32, 2, 4, 32};  // 64 vectors of A and of B: two each
  EXPECT_EQ(tileShapeProblem(uneven), std::nullopt);
  uneven.tile = {32, 64, 8, 16, 32, 1, 4, 128};  // 32 x 8 of A: 64 vectors for 128 invocations
  ASSERT_TRUE(tileShapeProblem(uneven).has_value());
  EXPECT_NE(tileShapeProblem(uneven)->find("split evenly"), std::string::npos) << *tileShapeProblem(uneven);

  // K12's passes cover whole rows: 256 invocations over 64 vectors a row of B are 4 rows a pass,
  // 32 invocations are half a row.
  KernelInfo hoisted = kernelInfo("hoisted");
  hoisted.tile = {128, 128, 8, 64, 64, 8, 4, 128};  // K11's shape: 2 passes of A, 2 of B
  EXPECT_EQ(tileShapeProblem(hoisted), std::nullopt);
  hoisted.tile = {128, 256, 8, 128, 256, 8, 4, 32};  // one warp
  ASSERT_TRUE(tileShapeProblem(hoisted).has_value());
  EXPECT_NE(tileShapeProblem(hoisted)->find("whole rows"), std::string::npos) << *tileShapeProblem(hoisted);
  // 96 invocations over 48 vectors a row of A are 2 rows a pass: its stores of A would not lie
  // whole vectors apart from pass to pass (storeKTile adds entries, not elements).
  hoisted.tile = {192, 64, 192, 64, 64, 8, 4, 96};
  ASSERT_TRUE(tileShapeProblem(hoisted).has_value());
  EXPECT_NE(tileShapeProblem(hoisted)->find("multiple of 4 rows"), std::string::npos) << *tileShapeProblem(hoisted);
  // The skipping kernels stage their listed K-tiles as K12 does, one K-block a K-tile.
  KernelInfo listed = kernelInfo("joint-64x32");
  listed.tile = {128, 128, 16, 64, 64, 8, 4, 128};
  ASSERT_TRUE(tileShapeProblem(listed).has_value());
  EXPECT_NE(tileShapeProblem(listed)->find("BK must be 8"), std::string::npos) << *tileShapeProblem(listed);
  listed.tile = {128, 256, 8, 128, 256, 8, 4, 32};
  ASSERT_TRUE(tileShapeProblem(listed).has_value());
  EXPECT_NE(tileShapeProblem(listed)->find("whole rows"), std::string::npos) << *tileShapeProblem(listed);

  KernelInfo straddling = kernelInfo("joint-32x32");
  straddling.aGranularity = 64 + 32;  // a sub-tile of 32 rows straddles 96-row pattern tiles
  ASSERT_TRUE(tileShapeProblem(straddling).has_value());
  EXPECT_NE(tileShapeProblem(straddling)->find("whole sub-tiles of 4·TM rows"), std::string::npos) << *tileShapeProblem(straddling);
  KernelInfo coarse = kernelInfo("b-warp");
  coarse.bGranularity = 256;  // pattern tiles of two block tiles: they nest
  EXPECT_EQ(tileShapeProblem(coarse), std::nullopt);
}

TEST(VulkanLimits, PersistentKernelsGetTwoWorkgroupsPerSmOrOnePerTile) {
  ComputeLimits h200 = h200Limits();
  EXPECT_EQ(persistentWorkgroups(1024, h200), 264u);  // 4096^2 in 128 x 128 tiles
  EXPECT_EQ(persistentWorkgroups(100, h200), 100u);   // fewer tiles than slots
  ComputeLimits cpu = lavapipeLimits();
  cpu.cpuThreads = 2;
  EXPECT_EQ(persistentWorkgroups(1024, cpu), 4u);
  ComputeLimits unknown = lavapipeLimits();  // a GPU that does not say how many SMs it has
  EXPECT_EQ(persistentWorkgroups(1024, unknown), 1024u);
  EXPECT_EQ(persistentWorkgroups(1ull << 20, unknown), 65535u);  // maxComputeWorkGroupCount[0]
  EXPECT_EQ(persistentWorkgroups(3, h200, 7), 7u);                 // asked for: more than the tiles
  EXPECT_EQ(persistentWorkgroups(3, unknown, 70000), 65535u);
}

TEST(VulkanLimits, ABufferBeyondMaxStorageBufferRangeIsUnavailableWithTheBytes) {
  try {
    checkBufferFits((128ull << 20) + 4, "matrix A (1x33554433)", lavapipeLimits());
    FAIL() << "accepted a buffer beyond the range";
  } catch (const UnavailableError& e) {
    EXPECT_EQ(e.code(), ExitCode::Unavailable);
    std::string text = e.what();
    EXPECT_NE(text.find("matrix A"), std::string::npos) << text;
    EXPECT_NE(text.find("134217732 bytes"), std::string::npos) << text;
    EXPECT_NE(text.find("128 MiB"), std::string::npos) << text;
    EXPECT_NE(text.find("maxStorageBufferRange"), std::string::npos) << text;
  }
  EXPECT_NO_THROW(checkBufferFits(128ull << 20, "matrix A", lavapipeLimits()));
}

TEST(VulkanLimits, PinsAWarpSizedSubgroupOnlyWhereTheSizeVariesAndTheWorkgroupFits) {
  ComputeLimits fixed = lavapipeLimits();  // min = max: nothing to pin
  EXPECT_EQ(pinnedSubgroupSize(256, fixed), std::nullopt);
  ComputeLimits amd = fixed;
  amd.minSubgroupSize = 32;
  amd.maxSubgroupSize = 64;
  amd.maxWorkgroupSubgroups = 16;
  EXPECT_EQ(pinnedSubgroupSize(256, amd), 32u);
  EXPECT_EQ(pinnedSubgroupSize(1024, amd), std::nullopt);  // 1024 > 16 subgroups of 32
  ComputeLimits intel = fixed;
  intel.minSubgroupSize = 8;
  intel.maxSubgroupSize = 16;
  EXPECT_EQ(pinnedSubgroupSize(128, intel), 16u);  // the nearest to a warp it offers
  intel.pinSubgroupSize = false;
  EXPECT_EQ(pinnedSubgroupSize(128, intel), std::nullopt);
}

// ---- Tile overrides (TILESKIP_VULKAN_TILES) as plain functions.

TEST(VulkanTileOverrides, ParsesTilesAndSwitchesIntoCanonicalText) {
  std::vector<KernelOverride> overrides =
      parseTileOverrides(" pipelined=128x128x16/64x64/8x4/128, prefetch=0 ;joint-32x32=fma=1;", h200Limits());
  ASSERT_EQ(overrides.size(), 2u);
  EXPECT_EQ(overrides[0].kernel.id, "pipelined");
  EXPECT_EQ(overrides[0].kernel.tile.BK, 16);
  EXPECT_EQ(overrides[0].kernel.stem, "k11_pipelined");
  EXPECT_FALSE(overrides[0].switches.prefetchFragments);
  EXPECT_EQ(overrides[0].text, "pipelined=128x128x16/64x64/8x4/128,prefetch=0");
  EXPECT_EQ(overrides[1].kernel.tile.BK, 8);  // no tile given: the catalogue's
  EXPECT_TRUE(overrides[1].switches.explicitFma && overrides[1].switches.fetchEveryStep && overrides[1].switches.prefetchFragments);
  EXPECT_EQ(overrides[1].text, "joint-32x32=128x128x8/64x64/8x4/128,fma=1");
  EXPECT_EQ(describeOverrides(overrides),
            "tiles overridden: pipelined=128x128x16/64x64/8x4/128,prefetch=0, joint-32x32=128x128x8/64x64/8x4/128,fma=1");
  EXPECT_TRUE(parseTileOverrides("", h200Limits()).empty());
  EXPECT_EQ(describeOverrides({}), "");
  // Switches at their defaults say nothing; fma reaches K10 too (its updates are a warp tile's).
  EXPECT_EQ(parseTileOverrides("warptile=fma=0", h200Limits())[0].text, "warptile=128x128x16/64x64/8x4/128");
}

TEST(VulkanTileOverrides, AnEntryThatCannotRunIsBadInputNamingIt) {
  struct Bad {
    const char* text;
    const char* why;
  };
  const Bad bad[] = {
      {"pipelined", "expected KERNEL=TILE"},
      {"nonsense=128x128x8/64x64/8x4/128", "no kernel 'nonsense'"},
      {"cublas=fma=1", "not a tiled Vulkan kernel"},
      {"pipelined=128x128x8/64x64/8x4", "is not a tile"},
      {"pipelined=128x128x8/64x64/8x4/128,64x64x8/32x32/4x4/128", "two tiles"},
      {"pipelined=128x128x8/64x64/8x4/64", "threads = 32"},
      {"pipelined=32x64x8/16x32/1x4/128", "split evenly"},
      {"joint-8x32=128x128x8/64x64/4x4/128", "straddle"},
      {"pipelined=prefetch=2", "is 0 or 1, not '2'"},
      {"pipelined=unroll=1", "no switch 'unroll'"},
      {"pipelined=fma=1,,prefetch=0", "an empty item"},
      {"warptile=prefetch=0", "has no switch 'prefetch'"},
      {"vectorized=fma=1", "has no switch 'fma'"},
      {"hoisted=branchfree=0", "has no switch 'branchfree'"},
      // The skipping kernels run K12's loop over their list: K12's switches, one K-block a K-tile.
      {"joint-32x32=branchfree=0", "has no switch 'branchfree'"},
      {"a-warp=prefetch=0", "has no switch 'prefetch'"},
      {"a-warp=128x64x16/32x64/8x4/128", "BK must be 8"},
      {"pipelined=128x128x16/64x64/8x4/128", "32.5 KiB"},  // two stages beyond lavapipe's 32 KiB
      {"pipelined=fma=1;pipelined=prefetch=0", "overridden twice"},
  };
  for (const Bad& b : bad) {
    try {
      parseTileOverrides(b.text, lavapipeLimits());
      ADD_FAILURE() << "accepted " << b.text;
    } catch (const InputError& e) {
      std::string text = e.what();
      EXPECT_NE(text.find("TILESKIP_VULKAN_TILES"), std::string::npos) << text;
      EXPECT_NE(text.find(b.why), std::string::npos) << b.text << ": " << text;
      if (std::string_view(b.why) != "overridden twice") {
        EXPECT_NE(text.find(b.text), std::string::npos) << text;
      }
    }
  }
}

// A tune cache entry or a `tileskip tune` choice is a typed variant, not text in the variable's
// syntax parsed again; its errors say where it came from and name it by its text.
TEST(VulkanTileOverrides, AVariantIsResolvedOnItsOwnAndNamesWhereItCameFrom) {
  KernelOverride o = resolveVariant("pipelined", KernelVariant{std::nullopt, {{"fma", true}}}, lavapipeLimits(), "the tune cache x.json");
  EXPECT_TRUE(o.switches.explicitFma);
  EXPECT_EQ(o.text, "pipelined=" + tileNotation(kernelInfo("pipelined").tile) + ",fma=1");
  // The report's text names switches in specialization order, whatever order the variant gave.
  KernelOverride both = resolveVariant("pipelined", KernelVariant{std::nullopt, {{"branchfree", false}, {"fma", true}}},
                                       lavapipeLimits(), "the tune cache x.json");
  EXPECT_EQ(both.text, "pipelined=" + tileNotation(kernelInfo("pipelined").tile) + ",fma=1,branchfree=0");
  struct Bad {
    KernelVariant variant;
    const char* why;
  };
  for (const Bad& b : {Bad{{std::nullopt, {{"unroll", true}}}, "'pipelined=unroll=1': no switch 'unroll'"},
                       Bad{{TileShape{128, 128, 8, 64, 64, 8, 4, 64}, {}}, "'pipelined=128x128x8/64x64/8x4/64': "},
                       Bad{{TileShape{128, 128, 16, 64, 64, 8, 4, 128}, {}}, "32.5 KiB"}}) {
    try {
      resolveVariant("pipelined", b.variant, lavapipeLimits(), "the tune cache x.json");
      ADD_FAILURE() << "accepted " << variantText(b.variant);
    } catch (const InputError& e) {
      std::string text = e.what();
      EXPECT_EQ(text.rfind("the tune cache x.json: 'pipelined=", 0), 0u) << text;
      EXPECT_NE(text.find(b.why), std::string::npos) << text;
      EXPECT_EQ(text.find(kTileOverridesVariable), std::string::npos) << text;
    }
  }
  EXPECT_THROW(resolveVariant("warptile", KernelVariant{std::nullopt, {{"prefetch", false}}}, lavapipeLimits(), "tune"), InputError);
  EXPECT_THROW(resolveVariant("cublas", KernelVariant{std::nullopt, {{"fma", true}}}, lavapipeLimits(), "tune"), InputError);
}

TEST(VulkanTileOverrides, OnlyTheCatalogueEntryIsOverridden) {
  std::vector<KernelOverride> overrides = parseTileOverrides("joint-8x32=fma=1", lavapipeLimits());
  const KernelInfo& catalogued = kernelInfo("joint-8x32");
  EXPECT_EQ(findOverride(overrides, catalogued), &overrides[0]);
  KernelInfo testBuild = catalogued;  // the same kernel built for a test: still the catalogue's entry
  testBuild.stem = "testing_too_eager_s07_joint_8x32";
  EXPECT_EQ(findOverride(overrides, testBuild), &overrides[0]);
  KernelInfo ownTile = catalogued;  // a caller's own shape stays
  ownTile.tile = {32, 64, 8, 32, 32, 2, 4, 64};
  EXPECT_EQ(findOverride(overrides, ownTile), nullptr);
  KernelInfo ownGranularity = catalogued;
  ownGranularity.aGranularity = 32;
  EXPECT_EQ(findOverride(overrides, ownGranularity), nullptr);
  EXPECT_EQ(findOverride(overrides, kernelInfo("joint-32x32")), nullptr);
}

TEST(VulkanTileOverrides, SwitchesAreSpecializationConstantsAtTheCataloguesDefaults) {
  // Every id reaches every pipeline, so a default must be set here, not assumed from the shader.
  Specialization constants = kernelConstants(kernelInfo("pipelined"));
  EXPECT_EQ(constants.values[static_cast<std::size_t>(SpecId::PrefetchFragments)], 1u);
  EXPECT_EQ(constants.values[static_cast<std::size_t>(SpecId::ExplicitFma)], 0u);
  EXPECT_EQ(constants.values[static_cast<std::size_t>(SpecId::StoreBeforeCompute)], 0u);
  EXPECT_EQ(constants.values[static_cast<std::size_t>(SpecId::FetchEveryStep)], 1u);
  PipelineSwitches switched{false, true, true, false};
  Specialization other = kernelConstants(kernelInfo("pipelined"), switched);
  EXPECT_EQ(other.values[static_cast<std::size_t>(SpecId::PrefetchFragments)], 0u);
  EXPECT_EQ(other.values[static_cast<std::size_t>(SpecId::ExplicitFma)], 1u);
  EXPECT_EQ(other.values[static_cast<std::size_t>(SpecId::StoreBeforeCompute)], 1u);
  EXPECT_EQ(other.values[static_cast<std::size_t>(SpecId::FetchEveryStep)], 0u);
  EXPECT_TRUE(constants < other || other < constants) << "a switch makes another pipeline";
}

// ---- Pipeline statistics (VK_KHR_pipeline_executable_properties) as plain functions.

TEST(VulkanPipelineStatistics, OneLineNamesTheKernelItsConstantsAndEveryStatistic) {
  VkPipelineExecutableStatisticKHR statistic{};
  statistic.format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR;
  statistic.value.u64 = 223;
  EXPECT_EQ(statisticValueText(statistic), "223");
  statistic.format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR;
  statistic.value.i64 = -4;
  EXPECT_EQ(statisticValueText(statistic), "-4");
  statistic.format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR;
  statistic.value.b32 = VK_TRUE;
  EXPECT_EQ(statisticValueText(statistic), "true");
  statistic.format = VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR;
  statistic.value.f64 = 0.125;
  EXPECT_EQ(statisticValueText(statistic), "0.125");

  Specialization constants = kernelConstants(kernelInfo("pipelined"));
  std::string spec = specializationText(constants);
  EXPECT_NE(spec.find("BM=128 BN=128 BK=8 WM=64 WN=64 TM=8 TN=4 threads=128"), std::string::npos) << spec;
  EXPECT_NE(spec.find("prefetch=1 fma=0 earlystore=0 branchfree=1"), std::string::npos) << spec;
  std::string line = pipelineStatisticsLine(
      "pipelined", "k11_pipelined", constants,
      {{"Compute Shader", {{"Register Count", "223"}, {"Local Memory, bytes", "0"}}}, {"SASS|2", {{"Spills=", "12"}}}});
  EXPECT_EQ(line.rfind("vulkan pipeline pipelined (k11_pipelined) BM=128", 0), 0u) << line;
  EXPECT_NE(line.find(" | Compute Shader: Register Count=223, Local Memory  bytes=0 | SASS 2: Spills =12"), std::string::npos) << line;
  EXPECT_NE(pipelineStatisticsLine("pipelined", "k11_pipelined", constants, {}).find("no executables reported"), std::string::npos);

  std::string file = internalRepresentationFileName("k11_pipelined", constants, 0, "NV SASS/1", true);
  EXPECT_EQ(file.rfind("k11_pipelined-", 0), 0u) << file;
  EXPECT_EQ(file.substr(file.size() - 16), "-0-NV_SASS_1.txt") << file;
  Specialization other = kernelConstants(kernelInfo("pipelined"), {false, false, false, false});
  EXPECT_NE(internalRepresentationFileName("k11_pipelined", other, 0, "NV SASS/1", true), file) << "variants must not collide";
  EXPECT_EQ(internalRepresentationFileName("k", constants, 1, "x", false).substr(1 + 1 + 8), "-1-x.bin");
}

// ---- Embedded SPIR-V.

TEST(VulkanShaders, EveryCatalogueTwinAndPatternBuilderIsEmbedded) {
  std::vector<std::string_view> stems;
  for (const KernelInfo* k : glslTwins()) stems.push_back(k->stem);
  stems.insert(stems.end(), {"pattern_a", "pattern_b"});
  for (std::string_view stem : stems) {
    std::span<const std::uint32_t> words = embeddedSpirv(stem);
    ASSERT_GT(words.size(), 5u) << stem;
    EXPECT_EQ(words[0], kSpirvMagic) << stem;
  }
  EXPECT_TRUE(embeddedSpirv("k99_nonsense").empty());
  // A Hopper row has no GLSL twin, so nothing of its stem is embedded and Vulkan does not offer it.
  for (const KernelInfo& k : twinKernels()) {
    if (k.hasGlslTwin()) continue;
    EXPECT_TRUE(embeddedSpirv(k.stem).empty()) << k.stem;
  }
  // The test-only builds are not the product's.
  for (std::string_view stem : embeddedStems()) EXPECT_NE(stem.rfind("testing_", 0), 0u) << stem;
}

// ---- On the device.

TEST(VulkanDevice, AHopperKernelIsRefusedSayingWhereItRuns) {
  VULKAN_OR_SKIP(backend, false);
  for (const KernelInfo& k : twinKernels()) {
    if (k.hasGlslTwin()) continue;
    EXPECT_FALSE(backend.implements(k.id)) << k.id;
    try {
      selectKernels(std::string(k.id), backend, true, DType::Fp16);
      ADD_FAILURE() << k.id << " was selected on Vulkan";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("compute capability 9.0"), std::string::npos) << e.what();
    }
  }
}

TEST(VulkanDevice, GpuPatternsEqualCpuPatternsAtEveryGranularity) {
  VULKAN_OR_SKIP(backend, false);
  struct Shape {
    int m, n, k;
  };
  for (Shape s : {Shape{1, 1, 1}, Shape{100, 37, 259}, Shape{130, 70, 136}, Shape{67, 1029, 33}}) {
    GeneratorOptions options;
    options.block = 8;
    Matrix a = generate("segments", Operand::A, s.m, s.k, 0.4, 11, options);
    Matrix b = generate("segments", Operand::B, s.k, s.n, 0.4, 12, options);
    std::unique_ptr<DeviceProblem> onDevice = backend.upload(a, b);
    for (int g : {1, 5, 8, 32, 64}) {
      KernelInfo k = kernelInfo("joint-8x32");
      k.aGranularity = g;
      k.bGranularity = g;
      onDevice->prepare(k);
      std::string where = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " at " + std::to_string(g);
      EXPECT_EQ(onDevice->downloadPattern(Operand::A, g).bits, buildAPattern(a, g).bits) << "A " << where;
      EXPECT_EQ(onDevice->downloadPattern(Operand::B, g).bits, buildBPattern(b, g).bits) << "B " << where;
    }
  }
  EXPECT_THROW(backend.upload(Matrix(4, 4), Matrix(4, 4))->downloadPattern(Operand::A, 8), InputError);
  EXPECT_TRUE(backend.takeDiagnostics().empty());
}

TEST(VulkanDevice, ATileBeyondTheDeviceIsRefusedAndTheDeviceKeepsWorking) {
  VULKAN_OR_SKIP(backend, false);
  KernelInfo big = kernelInfo("warptile");
  big.tile.BM = big.tile.BN = 256;
  big.tile.BK = 32;  // 2 · 256 · 32 floats = 64 KiB of shared memory, more than any Vulkan device here
  big.tile.threads = 32 * 4 * 4;
  ASSERT_EQ(tileShapeProblem(big), std::nullopt);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(Matrix(64, 64), Matrix(64, 64));
  try {
    onDevice->run(big);
    FAIL() << "ran a 64 KiB tile on a device with " << backend.device().sharedMemoryBytes << " bytes";
  } catch (const UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("maxComputeSharedMemorySize"), std::string::npos) << e.what();
  }
  KernelInfo inconsistent = kernelInfo("warptile");
  inconsistent.tile.threads = 64;
  EXPECT_THROW(onDevice->run(inconsistent), InputError);
  for (const VerifyResult& r : verifyOn(backend, kernelInfo("warptile"), true)) EXPECT_TRUE(r.passed()) << r.failure;
}

namespace {

// A catalogue kernel on a tile of the test's own.
KernelInfo withTile(const char* id, TileShape tile) {
  KernelInfo kernel = kernelInfo(id);
  kernel.tile = tile;
  return kernel;
}

}  // namespace

TEST(VulkanDevice, OnePipelineServesOtherTileShapes) {
  // Tile shapes are specialization constants: a shape the catalogue does not hold still passes.
  VULKAN_OR_SKIP(backend, false);
  const KernelInfo small = withTile("warptile", {64, 64, 8, 32, 32, 4, 4, 128});
  const KernelInfo joint = withTile("joint-8x32", {32, 64, 8, 32, 32, 2, 4, 64});
  // One sub-tile row per warp, four warps down the block.
  const KernelInfo aWarp = withTile("a-warp", {128, 64, 8, 32, 64, 8, 4, 128});
  const KernelInfo pipelined = withTile("pipelined", {64, 64, 16, 32, 32, 4, 4, 128});
  // Lanes whose fragments are not vectors read elements, from the stage K12's loops read
  // (warptile.glsl's readDepth): A's rows one or two at a time, B's columns two.
  const KernelInfo hoisted = withTile("hoisted", {64, 64, 8, 32, 32, 2, 2, 128});
  const KernelInfo listed = withTile("a-warp", {64, 64, 8, 32, 32, 1, 4, 128});
  for (const KernelInfo* k : {&small, &joint, &aWarp, &pipelined, &hoisted, &listed}) {
    for (const VerifyResult& r : verifyOn(backend, *k, true)) EXPECT_TRUE(r.passed()) << k->id << " " << r.caseName << ": " << r.failure;
  }
}

TEST(VulkanDevice, APersistentTileTooLargeForSharedMemoryIsRefusedWithTheNumbers) {
  // A 256 x 256 block tile: its two stages alone need 33024 bytes.
  VULKAN_OR_SKIP(backend, false);
  KernelInfo aWarp = kernelInfo("a-warp");
  aWarp.tile = {256, 256, 8, 64, 64, 8, 4, 512};
  std::uint64_t needs = kernelSharedBytes(aWarp, kMinKBlockListLength);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(Matrix(64, 64), Matrix(64, 64));
  if (needs <= backend.context().device().limits().maxSharedBytes) {
    for (const VerifyResult& r : verifyOn(backend, aWarp, true)) EXPECT_TRUE(r.passed()) << r.caseName << ": " << r.failure;
    GTEST_SKIP() << "the device has room for the tile: it ran";
  }
  try {
    onDevice->run(aWarp);
    FAIL() << "ran a tile needing " << needs << " bytes of shared memory";
  } catch (const UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find(byteText(needs)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("maxComputeSharedMemorySize"), std::string::npos) << e.what();
  }
}

TEST(VulkanDevice, AShortenedKBlockListWalksALongKInSeveralPasses) {
  // Six warp tiles of 64 x 96: two stages of 8 x (388 + 96) floats leave room for fewer than
  // 1024 list entries in 32 KiB (248), so K = 6500 (813 K-blocks) takes four passes there.
  VULKAN_OR_SKIP(backend, false);
  KernelInfo wide = kernelInfo("a-warp");
  wide.tile = {384, 96, 8, 64, 96, 8, 4, 192};
  std::uint32_t list = kBlockListLength(wide, backend.context().device().limits().maxSharedBytes);
  ASSERT_GE(list, kMinKBlockListLength);
  if (backend.context().device().limits().maxSharedBytes <= 32 * 1024) {
    EXPECT_EQ(list, 248u);
  }
  ProblemData data = segments(70, 100, 6500, 0.5, 21);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
  VerifyResult r = verifyKernel(backend, *onDevice, wide, data, referenceProduct(data.a, data.b));
  EXPECT_TRUE(r.passed()) << r.failure;
}

// Built together on several threads, the validation layers watching: each pipeline is the one
// the kernel's first run would have built, and a kernel that cannot run here is passed over
// without a word, for its run to say why. Tile shapes of this test's own, so that no earlier
// test of the process has built them.
TEST(VulkanWithValidation, PipelinesBuiltAheadAreTheOnesTheKernelsThenRun) {
  VULKAN_OR_SKIP(backend, true);
  const KernelInfo aWarp = withTile("a-warp", {64, 128, 8, 32, 64, 8, 4, 128});
  const KernelInfo joint = withTile("joint-8x32", {64, 32, 8, 32, 32, 2, 4, 64});
  const KernelInfo pipelined = withTile("pipelined", {128, 64, 16, 64, 32, 8, 4, 128});
  const std::uint64_t shared = backend.context().device().limits().maxSharedBytes;
  auto constantsOf = [&](const KernelInfo& k) {
    Specialization c = kernelConstants(k);
    if (std::uint32_t list = kBlockListLength(k, shared); list > 0) c.set(SpecId::KBlockListLength, static_cast<int>(list));
    return c;
  };
  const Pipelines& pipelines = backend.context().pipelines();
  for (const KernelInfo* k : {&aWarp, &joint, &pipelined}) ASSERT_FALSE(pipelines.hasPipeline(k->stem, constantsOf(*k))) << k->id;
  ProblemData data = segments(150, 70, 90, 0.5, 8);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
  const KernelInfo* kernels[] = {&aWarp, &kernelInfo("cublas"), &joint, &kernelInfo("mma"), &pipelined};
  onDevice->buildAhead(kernels);
  for (const KernelInfo* k : {&aWarp, &joint, &pipelined}) EXPECT_TRUE(pipelines.hasPipeline(k->stem, constantsOf(*k))) << k->id;
  ReferenceProduct reference = referenceProduct(data.a, data.b);
  for (const KernelInfo* k : {&aWarp, &joint, &pipelined}) {
    VerifyResult r = verifyKernel(backend, *onDevice, *k, data, reference);
    EXPECT_TRUE(r.passed()) << k->id << ": " << r.failure;
  }
  EXPECT_THROW(onDevice->run(kernelInfo("cublas")), InputError);
  EXPECT_EQ(backend.takeDiagnostics(), std::vector<std::string>{});
}

// With validation (synchronization validation included): the queue is one buffer that every
// dispatch of a problem reads and writes.
TEST(VulkanWithValidation, APersistentKernelRunsAgainOnTheSameProblem) {
  // The last workgroup out resets the block tile queue: a second dispatch (of the same kernel
  // or another persistent one) starts from tile 0 again. Without the reset it would find the
  // queue past the last tile and leave the poisoned C as it is.
  VULKAN_OR_SKIP(backend, true);
  ProblemData data = segments(300, 260, 200, 0.5, 31);  // 3 x 3 block tiles
  ReferenceProduct reference = referenceProduct(data.a, data.b);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
  for (const char* workgroups : {"", "2"}) {  // the device's count, then fewer workgroups than tiles
    PersistentWorkgroups count(workgroups);
    for (const char* id : {"joint-8x32", "joint-8x32", "a-warp", "joint-8x32"}) {
      VerifyResult r = verifyKernel(backend, *onDevice, kernelInfo(id), data, reference);
      EXPECT_TRUE(r.passed()) << id << " with '" << workgroups << "' workgroups: " << r.failure;
      EXPECT_EQ(blockTileQueue(*onDevice), (std::array<std::uint32_t, 2>{0, 0})) << id;
    }
  }
}

TEST(VulkanWithValidation, WorkgroupsBeyondTheTileCountFindTheQueueEmpty) {
  VULKAN_OR_SKIP(backend, true);
  ProblemData data = segments(130, 70, 136, 0.4, 41);  // 2 block tiles
  ReferenceProduct reference = referenceProduct(data.a, data.b);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
  PersistentWorkgroups count("7");
  for (int run = 0; run < 2; ++run) {
    for (const char* id : {"b-warp", "joint-32x32"}) {
      VerifyResult r = verifyKernel(backend, *onDevice, kernelInfo(id), data, reference);
      EXPECT_TRUE(r.passed()) << id << " run " << run << ": " << r.failure;
      EXPECT_EQ(blockTileQueue(*onDevice), (std::array<std::uint32_t, 2>{0, 0})) << id;
    }
  }
}

TEST(VulkanDevice, AWorkgroupCountThatIsNotANumberIsBadInput) {
  VULKAN_OR_SKIP(backend, false);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(Matrix(8, 8), Matrix(8, 8));
  for (const char* bad : {"two", "0", "-3", "5x"}) {
    PersistentWorkgroups count(bad);
    EXPECT_THROW(onDevice->run(kernelInfo("joint-8x32")), InputError) << bad;
  }
  PersistentWorkgroups count("3");
  EXPECT_NO_THROW(onDevice->run(kernelInfo("pipelined")));  // only the persistent kernels read it
}

TEST(VulkanDevice, TheSkipIsRightWhereASubgroupSpansTwoWarps) {
  // joint-8x32 built to act as where a 64-wide subgroup holds two warps: every listed K-block
  // takes the dense path. Slower, never wrong.
  VULKAN_OR_SKIP(backend, false);
  KernelInfo spanning = kernelInfo("joint-8x32");
  spanning.stem = "testing_spanning_s07_joint_8x32";
  for (const VerifyResult& r : verifyOn(backend, spanning, true)) EXPECT_TRUE(r.passed()) << r.caseName << ": " << r.failure;
}

// The tensor-core kernels' GLSL twins in their emulated builds (kernels/parts/mma.glsl): the
// staging, the stage ring, the indexing, the edges and S10's skips, on any device with fp16
// (lavapipe in CI), on every case of the suite and with the validation layers on.
TEST(VulkanDevice, TheTensorCoreKernelsPassTheVerifySuiteOnEmulatedCooperativeMatrices) {
  VULKAN_OR_SKIP(backend, true);
  if (!backend.context().device().limits().halfArithmetic) GTEST_SKIP() << "no fp16 in shaders on " << backend.device().name;
  ASSERT_EQ(tensorCoreKernels().size(), 3u);
  for (const KernelInfo* kernel : tensorCoreKernels()) {
    const KernelInfo emulated = emulatedTensorCoreKernel(*kernel);
    std::vector<VerifyResult> results = verifyOn(backend, emulated, false);
    ASSERT_FALSE(results.empty()) << kernel->id;
    for (const VerifyResult& r : results) {
      EXPECT_EQ(r.dtype, DType::Fp16) << kernel->id << ": the Vulkan twin takes fp16 only";
      EXPECT_TRUE(r.passed()) << kernel->id << " " << r.caseName << ": " << r.failure;
    }
  }
  EXPECT_TRUE(backend.takeDiagnostics().empty());
}

// The compaction twins multiply, for each 64-row tile, only the columns some row of the tile needs:
// a NaN row of B reaches exactly the tiles that need its column (compaction_case.hpp), through the
// chunked copies of the tensor-core twin and the fp32 twin's vector loads (N a multiple of 8 or 4;
// A transposed's rows are padded to whole vectors, so 70 and 130 rows leave a padding), and
// element by element, over several passes of a list shortened to lavapipe's shared memory.
TEST(VulkanDevice, TheCompactionTwinsMultiplyOnlyTheColumnsATileNeeds) {
  VULKAN_OR_SKIP(backend, true);
  std::vector<std::pair<KernelInfo, DType>> twins = {{kernelInfo("compact-64"), DType::Fp32}};
  if (backend.context().device().limits().halfArithmetic) {
    twins.emplace_back(emulatedTensorCoreKernel(kernelInfo("compact-mma-64")), DType::Fp16);
  }
  for (const auto& [compact, dtype] : twins) {
    for (auto [m, n, k] : {std::array{128, 24, 296}, std::array{130, 20, 300}, std::array{70, 16, 4200}}) {
      const tileskip::testing::CompactionCase c = tileskip::testing::compactionCase(m, n, k, compact.aGranularity);
      auto problem = backend.upload(c.a, c.b, dtype);
      problem->prepare(compact);
      problem->run(compact);
      EXPECT_EQ(tileskip::testing::compactionMismatches(problem->downloadC(), tileskip::testing::compactedProduct(c)), 0)
          << compact.id << " " << m << "x" << n << "x" << k;
    }
  }
  EXPECT_TRUE(backend.takeDiagnostics().empty());
}

// Where the device has no cooperative matrix (lavapipe), the native kernel is not offered and a
// run of it says what is missing; bf16 is refused for the Vulkan twin on any device.
TEST(VulkanDevice, TheTensorCoreKernelSaysWhatItNeeds) {
  VULKAN_OR_SKIP(backend, false);
  const KernelInfo& mma = kernelInfo("mma");
  EXPECT_FALSE(backend.takes(mma, DType::Bf16));
  EXPECT_FALSE(backend.takes(mma, DType::Tf32));  // the CUDA twin's alone
  EXPECT_FALSE(backend.takes(mma, DType::Fp32));
  if (backend.context().device().limits().cooperativeMatrix) GTEST_SKIP() << backend.device().name << " has cooperative matrices";
  EXPECT_FALSE(backend.implements("mma"));
  Matrix a(16, 16), b(16, 16);
  a.fill(1.0f);
  b.fill(1.0f);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(a, b, DType::Fp16);
  try {
    onDevice->run(mma);
    ADD_FAILURE() << "ran the native tensor-core kernel without cooperative matrices";
  } catch (const UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("VK_NV_cooperative_matrix"), std::string::npos) << e.what();
  }
}

// NVIDIA's driver orders shared variables as it likes and does not realign the stages that
// cooperative-matrix loads read: one 4-byte shared scalar in a file S10 includes made every case
// of its verify suite wrong on the H200 (lab/20-s10-skip-tensor), while lavapipe, with no
// cooperative matrix, cannot see it. So no shared scalar in a tensor-core kernel or the files
// it includes may be smaller than 16 bytes; arrays are sized in whole 16-byte multiples by
// their shapes (the catalogue's tiles, a K-block list in multiples of 4).
TEST(VulkanShaders, TheTensorCoreKernelsDeclareNoSharedScalarSmallerThanSixteenBytes) {
  const std::filesystem::path kernels = std::filesystem::path(TILESKIP_SOURCE_DIR) / "kernels";
  const std::regex include(R"re(^\s*#include\s+"([^"]+)")re");
  const std::regex scalar(R"re(^\s*shared\s+(\w+)\s+(\w+)\s*;)re");
  for (const KernelInfo* kernel : tensorCoreKernels()) {
    // Files as paths from kernels/; an include names a file beside the one that includes it.
    std::deque<std::filesystem::path> pending{std::string(kernel->source) + ".comp"};
    std::set<std::filesystem::path> seen;
    int scalars = 0;
    while (!pending.empty()) {
      const std::filesystem::path file = pending.front().lexically_normal();
      pending.pop_front();
      if (!seen.insert(file).second) continue;
      std::ifstream in(kernels / file);
      ASSERT_TRUE(in.is_open()) << (kernels / file);
      std::smatch m;
      for (std::string line; std::getline(in, line);) {
        if (std::regex_search(line, m, include)) pending.push_back(file.parent_path() / std::string(m[1]));
        if (std::regex_search(line, m, scalar)) {
          ++scalars;
          EXPECT_TRUE(m[1] == "uvec4" || m[1] == "ivec4" || m[1] == "vec4") << kernel->id << ": " << file << ": " << line;
        }
      }
    }
    EXPECT_GT(seen.size(), 3u) << kernel->id << ": the includes were not followed";
    if (kernel->persistent()) {
      EXPECT_GE(scalars, 2) << kernel->id << ": the queue's and the dense veto's scalars were not found";
    }
  }
}

// The GLSL twins put each output in the invocation that threadOutputs() names, the rule the CUDA
// twins follow too (LaneMap.CudaKernelsInEmulation...). Each kernel's testing_lanes_ build
// stores its invocation index instead of the product; one workgroup's tile shows the map. A's
// last column is zero, so every pattern byte clears a depth and the skipping kernels run their
// skipping path, as in the CUDA probe.
TEST(LaneMap, GlslKernelsOnTheDevicePutEachOutputWhereTheCatalogueSays) {
#if defined(TILESKIP_ADDRESS_SANITIZER)
  // What it checks is in the shaders, which no sanitizer sees, and its lavapipe pipeline builds
  // under AddressSanitizer's allocator took 180 s, a seventh of the sanitizer suite: the test
  // build runs it.
  GTEST_SKIP() << "the shaders' lane map: checked by the test build";
#endif
  VULKAN_OR_SKIP(backend, true);
  for (const KernelInfo* twin : glslTwins()) {
    const KernelInfo& kernel = *twin;
    const std::string stem = "testing_lanes_" + std::string(kernel.stem);
    KernelInfo probe = kernel;
    probe.stem = stem;
    const TileShape& t = kernel.tile;
    ProblemData data{generate("uniform", Operand::A, t.BM, kKBlock, 1.0, 1), generate("uniform", Operand::B, kKBlock, t.BN, 1.0, 2)};
    for (int row = 0; row < t.BM; ++row) data.a(row, kKBlock - 1) = 0.0f;
    // A tensor-core kernel takes fp16 (its probe build emulates the cooperative matrices).
    const DType dtype = kernel.usesTensorCores() ? DType::Fp16 : DType::Fp32;
    roundOperand(data.a, dtype, "A");
    roundOperand(data.b, dtype, "B");
    std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b, dtype);
    onDevice->run(probe);
    Matrix c = onDevice->downloadC();
    const std::vector<int> owners = outputOwners(kernel);
    int wrong = 0;
    for (int row = 0; row < t.BM; ++row) {
      for (int col = 0; col < t.BN; ++col) {
        const int owner = owners[static_cast<std::size_t>(row) * static_cast<std::size_t>(t.BN) + static_cast<std::size_t>(col)];
        if (c(row, col) == static_cast<float>(owner)) continue;
        if (wrong++ == 0) {
          ADD_FAILURE() << kernel.id << ": output (" << row << ", " << col << ") stored by invocation " << c(row, col)
                        << ", the catalogue's rule gives it to invocation " << owner;
        }
      }
    }
    EXPECT_EQ(wrong, 0) << kernel.id;
  }
  EXPECT_TRUE(backend.takeDiagnostics().empty());
}

TEST(VulkanDevice, AProblemBeyondMaxStorageBufferRangeIsUnavailable) {
  VULKAN_OR_SKIP(backend, false);
  std::uint64_t range = backend.context().device().limits().maxStorageBufferRange;
  if (range > (1ull << 30)) GTEST_SKIP() << "maxStorageBufferRange is " << byteText(range) << ": too large to exceed in a test";
  auto k = static_cast<std::int64_t>(range / sizeof(float) + 1);
  Matrix a(1, k), b(k, 1);
  try {
    backend.upload(a, b);
    FAIL() << "uploaded a matrix of " << a.bytes() << " bytes";
  } catch (const UnavailableError& e) {
    EXPECT_EQ(e.code(), ExitCode::Unavailable);
    EXPECT_NE(std::string(e.what()).find("maxStorageBufferRange"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(a.bytes()) + " bytes"), std::string::npos) << e.what();
  }
}

TEST(VulkanDevice, AGridBeyondMaxComputeWorkGroupCountIsSplit) {
  VULKAN_OR_SKIP(backend, false);
  std::uint64_t groups = backend.context().device().limits().maxGroupCountX;
  const KernelInfo& naive = kernelInfo("naive");
  std::uint64_t n = (groups + 2) * static_cast<std::uint64_t>(naive.tile.BN);
  if (n > (1u << 24)) GTEST_SKIP() << "maxComputeWorkGroupCount[0] is " << groups << ": too large to exceed in a test";
  ProblemData data{generate("uniform", Operand::A, 2, 3, 1.0, 1), generate("uniform", Operand::B, 3, static_cast<int>(n), 1.0, 2)};
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
  for (const char* id : {"naive", "coalesced"}) {
    VerifyResult r = verifyKernel(backend, *onDevice, kernelInfo(id), data, referenceProduct(data.a, data.b));
    EXPECT_TRUE(r.passed()) << id << ": " << r.failure;
  }
}

TEST(VulkanDevice, TheVerifySuiteCatchesATooEagerSkipOnTheDevice) {
  // The same joint-8x32 shader built with TILESKIP_TEST_TOO_EAGER: it also drops K-blocks whose
  // agreed joint byte keeps a single product.
  VULKAN_OR_SKIP(backend, false);
  KernelInfo eager = kernelInfo("joint-8x32");
  eager.stem = "testing_too_eager_s07_joint_8x32";
  std::vector<VerifyResult> results = verifyOn(backend, eager, false);
  int singleProductFailures = 0, failures = 0;
  for (const VerifyResult& r : results) {
    failures += !r.passed();
    if (r.caseName.rfind("single-product", 0) == 0 && !r.passed()) ++singleProductFailures;
  }
  EXPECT_GE(singleProductFailures, 2) << "the single-product cases must catch the skip";
  EXPECT_LT(failures, static_cast<int>(results.size())) << "dense inputs have no single-product K-blocks to drop";
}

TEST(VulkanWithValidation, TheMessengerCollectsMessagesAndTheSuiteFailsOnThem) {
  VULKAN_OR_SKIP(backend, true);
  ASSERT_TRUE(backend.takeDiagnostics().empty()) << "opening with validation reported something";
  const Device& device = backend.context().device();
  // A buffer of size 0 is invalid (VUID-VkBufferCreateInfo-size-00912); drivers accept it.
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = 0;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkResult result = device.vk().vkCreateBuffer(device.handle(), &info, nullptr, &buffer);
  if (result == VK_SUCCESS && buffer != VK_NULL_HANDLE) device.vk().vkDestroyBuffer(device.handle(), buffer, nullptr);
  std::vector<std::string> messages = backend.takeDiagnostics();
  ASSERT_FALSE(messages.empty()) << "the validation layers reported nothing for an invalid call";
  EXPECT_NE(messages.front().find("00912"), std::string::npos) << messages.front();
  EXPECT_TRUE(backend.takeDiagnostics().empty()) << "messages are handed out once";

  // The same message during a verified run fails that run.
  result = device.vk().vkCreateBuffer(device.handle(), &info, nullptr, &buffer);
  if (result == VK_SUCCESS && buffer != VK_NULL_HANDLE) device.vk().vkDestroyBuffer(device.handle(), buffer, nullptr);
  ProblemData data{generate("uniform", Operand::A, 7, 5, 1.0, 1), generate("uniform", Operand::B, 5, 13, 1.0, 2)};
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
  VerifyResult r = verifyKernel(backend, *onDevice, kernelInfo("warptile"), data, referenceProduct(data.a, data.b));
  EXPECT_FALSE(r.passed());
  EXPECT_NE(r.failure.find("diagnostic: Vulkan validation error"), std::string::npos) << r.failure;
}

// ---- Tile overrides and pipeline statistics on the device.

// Each variant is a TILESKIP_VULKAN_TILES value; the kernels it overrides run the whole verify
// suite through a backend opened with it. The suite's name puts it in the kernels_vulkan_*
// CTest entries: subgroup sizes 4, 8 and 16 on lavapipe, validation on.
class VulkanTileOverrideKernelConformance : public ::testing::TestWithParam<const char*> {};

TEST_P(VulkanTileOverrideKernelConformance, PassesTheVerifySuite) {
  std::unique_ptr<VulkanBackend> opened;
  std::vector<KernelOverride> overrides;
  {
    ScopedEnv tiles("TILESKIP_VULKAN_TILES", GetParam());
    const char* validation = std::getenv("TILESKIP_VALIDATION");
    try {
      opened = std::make_unique<VulkanBackend>(
          BackendOptions{.deviceIndex = -1, .validation = validation != nullptr && std::string_view(validation) == "1"});
    } catch (const UnavailableError& e) {
      if (tileskip::testing::backendRequired("vulkan")) FAIL() << "vulkan is required here but unavailable: " << e.what();
      GTEST_SKIP() << "vulkan unavailable: " << e.what();
    }
    overrides = parseTileOverrides(GetParam(), opened->context().device().limits());
  }
  VulkanBackend& backend = *opened;
  ASSERT_FALSE(overrides.empty());
  for (const KernelOverride& o : overrides) {
    EXPECT_NE(backend.device().api.find(o.text), std::string::npos) << "the device line names the override: " << backend.device().api;
    const KernelInfo& catalogued = kernelInfo(o.kernel.id);
    std::vector<VerifyResult> results = verifyOn(backend, catalogued, false);
    for (const VerifyResult& r : results) EXPECT_TRUE(r.passed()) << o.text << " " << r.caseName << ": " << r.failure;
    // It ran with the override's constants, not the catalogue's.
    Specialization ran = kernelConstants(o.kernel, o.switches), listed = kernelConstants(catalogued);
    if (std::uint32_t list = kBlockListLength(o.kernel, backend.context().device().limits().maxSharedBytes); list > 0) {
      ran.set(SpecId::KBlockListLength, static_cast<int>(list));
      listed.set(SpecId::KBlockListLength, static_cast<int>(kBlockListLength(catalogued, backend.context().device().limits().maxSharedBytes)));
    }
    EXPECT_TRUE(backend.context().pipelines().hasPipeline(catalogued.stem, ran)) << o.text;
    EXPECT_FALSE(backend.context().pipelines().hasPipeline(catalogued.stem, listed)) << o.text;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, VulkanTileOverrideKernelConformance,
                         ::testing::Values("pipelined=prefetch=0", "pipelined=fma=1,branchfree=0",
                                           "pipelined=64x64x16/32x32/4x4/128,earlystore=1",
                                           "joint-32x32=128x64x8/64x32/8x4/128;joint-8x32=fma=1",
                                           "a-warp=128x64x8/32x64/8x4/128", "warptile=fma=1",
                                           "hoisted=128x128x8/64x64/8x4/128,fma=1"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           std::string name = "vulkan_";
                           for (const char* c = param.param; *c != '\0'; ++c) name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
                           return name;
                         });

TEST(VulkanDevice, PipelineStatisticsPrintALinePerPipelineOrSayOnceThatTheDeviceHasNone) {
  VULKAN_OR_SKIP(backend, false);
  static_cast<void>(backend);  // opened only to skip where there is no device: the command opens its own
  auto run = [](const std::string& kernels) {
    return tileskip::testing::runCommand(std::string(kPipelineStatisticsVariable) + "=1 " + std::string(TILESKIP_BINARY) +
                                         " bench --backend vulkan --size 64 --repeat 1 --warmup 0 --no-baseline --kernel " + kernels);
  };
  tileskip::testing::Outcome o = run("pipelined,joint-32x32");
  EXPECT_EQ(o.exitCode, 0) << o.output;
  std::size_t verified = 0;
  for (std::size_t at = o.output.find(" yes "); at != std::string::npos; at = o.output.find(" yes ", at + 1)) ++verified;
  EXPECT_EQ(verified, 2u) << "both kernels verified: " << o.output;
  auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = o.output.find(text); at != std::string::npos; at = o.output.find(text, at + 1)) ++n;
    return n;
  };
  if (count("does not offer VK_KHR_pipeline_executable_properties") > 0) {
    EXPECT_EQ(count("does not offer VK_KHR_pipeline_executable_properties"), 1u) << "said once: " << o.output;
    EXPECT_EQ(count("vulkan pipeline "), 0u) << o.output;
  } else {  // a device that reports: one line per kernel pipeline and pattern builder
    EXPECT_EQ(count("vulkan pipeline pipelined (k11_pipelined) BM=128"), 1u) << o.output;
    EXPECT_EQ(count("vulkan pipeline joint-32x32 (s06_joint_32x32) BM=128"), 1u) << o.output;
    EXPECT_GE(count("vulkan pipeline "), 3u) << "and the pattern builders: " << o.output;
  }
  tileskip::testing::Outcome bad = tileskip::testing::runCommand(std::string(kPipelineStatisticsVariable) + "=yes " +
                                                                 std::string(TILESKIP_BINARY) + " bench --backend vulkan --size 8");
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("TILESKIP_VULKAN_PIPELINE_STATS is 1"), std::string::npos) << bad.output;
}

TEST(VulkanDevice, ABadTileOverrideStopsTheBenchAsBadInput) {
  VULKAN_OR_SKIP(backend, false);
  static_cast<void>(backend);
  tileskip::testing::Outcome o = tileskip::testing::runCommand("TILESKIP_VULKAN_TILES='pipelined=128x128x8/64x64/8x4/64' " +
                                                               std::string(TILESKIP_BINARY) + " bench --backend vulkan --size 8");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("entry 'pipelined=128x128x8/64x64/8x4/64'"), std::string::npos) << o.output;
}

TEST(VulkanTileOverrides, TuningTriesEverySwitchAndTheShapesThatFitTheDevice) {
  auto texts = [](const std::vector<KernelVariant>& variants) {
    std::vector<std::string> list;
    for (const KernelVariant& v : variants) list.push_back(variantText(v));
    return list;
  };
  std::vector<std::string> pipelined = texts(tuningCandidates(kernelInfo("pipelined"), h200Limits()));
  ASSERT_FALSE(pipelined.empty());
  EXPECT_EQ(pipelined.front(), "") << "the catalogue's own first";
  for (const char* v : {"branchfree=0", "prefetch=0", "fma=1", "128x128x8/64x32/8x4/256"}) {
    EXPECT_NE(std::find(pipelined.begin(), pipelined.end(), v), pipelined.end()) << v;
  }
  EXPECT_EQ(texts(tuningCandidates(kernelInfo("warptile"), h200Limits())), (std::vector<std::string>{"", "fma=1", "128x128x8/64x64/8x4/128"}));
  // K12 has no K11 loop to switch; K11's shape is its 128 x 128 ablation.
  EXPECT_EQ(texts(tuningCandidates(kernelInfo("hoisted"), h200Limits())), (std::vector<std::string>{"", "fma=1", "128x128x8/64x64/8x4/128"}));
  EXPECT_TRUE(tuningCandidates(kernelInfo("naive"), h200Limits()).empty());
  // Every candidate of every kernel parses as an override on that device, its text giving it back.
  for (const KernelInfo& k : kCatalogue) {
    for (const KernelVariant& v : tuningCandidates(k, lavapipeLimits())) {
      if (v.isCatalogue()) continue;
      EXPECT_NO_THROW(parseTileOverrides(std::string(k.id) + "=" + variantText(v), lavapipeLimits())) << k.id << "=" << variantText(v);
      EXPECT_EQ(parseVariantText(variantText(v), "test"), v) << k.id << "=" << variantText(v);
    }
  }
}

// The backend's tuning interface: variants for the warp-tiled kernels only, and a variant it does
// not offer refused; `tileskip tune` on kernels without variants says there is nothing to tune.
TEST(VulkanDevice, TuningOffersVariantsOfTheWarpTiledKernelsOnly) {
  VULKAN_OR_SKIP(backend, false);
  Tunable* tunable = backend.tuning();
  ASSERT_NE(tunable, nullptr);
  EXPECT_TRUE(tunable->variants(kernelInfo("naive")).empty());
  std::vector<KernelVariant> offered = tunable->variants(kernelInfo("warptile"));
  ASSERT_GT(offered.size(), 1u);
  EXPECT_TRUE(offered.front().isCatalogue());
  tunable->useVariant(kernelInfo("warptile"), offered[1]);
  EXPECT_NE(backend.device().api.find("tiles overridden: warptile="), std::string::npos) << backend.device().api;
  tunable->useVariant(kernelInfo("warptile"), {});
  EXPECT_EQ(backend.device().api.find("tiles overridden"), std::string::npos) << backend.device().api;
  try {
    tunable->useVariant(kernelInfo("warptile"), KernelVariant{std::nullopt, {{"prefetch", false}}});
    ADD_FAILURE() << "accepted a variant it does not offer";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("vulkan has no variant 'prefetch=0' of kernel 'warptile'"), std::string::npos) << e.what();
  }
  tileskip::testing::Outcome o = tileskip::testing::runTileskip("tune --backend vulkan --kernel naive,coalesced --size 16");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("backend vulkan has nothing to tune in 'naive,coalesced'"), std::string::npos) << o.output;
}

TEST(VulkanDevice, TuneCachesItsChoiceAndTheNextRunUsesIt) {
  VULKAN_OR_SKIP(backend, false);
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_vulkan_tune_");
  std::filesystem::path cache = dir / "tune.json";
  std::filesystem::remove(cache);
  std::string withCache = std::string(kTuneCacheVariable) + "=" + cache.string() + " " + std::string(TILESKIP_BINARY);
  tileskip::testing::Outcome tuned =
      tileskip::testing::runCommand(withCache + " tune --backend vulkan --kernel warptile --size 40 --warmup 0 --repeat 1");
  ASSERT_EQ(tuned.exitCode, 0) << tuned.output;
  EXPECT_NE(tuned.output.find("(catalogue)"), std::string::npos) << tuned.output;
  EXPECT_NE(tuned.output.find("saved to " + cache.string()), std::string::npos) << tuned.output;
  std::string key = tuneCacheKey("vulkan", backend.context().device().info());
  nlohmann::json written = nlohmann::json::parse(std::ifstream(cache));
  ASSERT_TRUE(written["devices"].contains(key)) << written.dump(2);
  ASSERT_TRUE(written["devices"][key]["size_classes"].contains("32")) << written.dump(2);  // 40 is nearest 32
  EXPECT_EQ(written["devices"][key]["size_classes"]["32"]["measured"]["warptile"]["problem"].get<std::string>().find("M=40"), 0u)
      << written.dump(2);

  // Whatever was chosen, a cache naming a variant makes the next run in that size class use it,
  // and say so: the device line names the class, the row the variant it ran.
  written["devices"][key]["size_classes"]["32"]["variants"] = {{"warptile", {{"switches", {{"fma", true}}}}}};
  std::ofstream(cache) << written.dump();
  std::filesystem::path rows = dir / "rows.json";
  auto rowVariant = [&](int size) {
    tileskip::testing::Outcome bench = tileskip::testing::runCommand(
        withCache + " bench --backend vulkan --kernel warptile --size " + std::to_string(size) +
        " --warmup 0 --repeat 1 --no-baseline --out " + rows.string());
    EXPECT_EQ(bench.exitCode, 0) << bench.output;
    EXPECT_NE(bench.output.find("tiles overridden: warptile=128x128x16/64x64/8x4/128,fma=1 for size class 32"), std::string::npos)
        << bench.output;
    return nlohmann::json::parse(std::ifstream(rows))["rows"][0]["tune_overrides"].get<std::string>();
  };
  EXPECT_EQ(rowVariant(40), "warptile=128x128x16/64x64/8x4/128,fma=1");
  EXPECT_EQ(rowVariant(44), "warptile=128x128x16/64x64/8x4/128,fma=1");  // class 32 too
  EXPECT_EQ(rowVariant(96), "") << "class 128 was never tuned: the catalogue's tiles";
  // The variable wins over the cache, even set empty.
  tileskip::testing::Outcome plain = tileskip::testing::runCommand(
      std::string(kTileOverridesVariable) + "= " + withCache + " bench --backend vulkan --kernel warptile --size 40 --warmup 0 --repeat 1 --no-baseline");
  EXPECT_EQ(plain.output.find("tiles overridden"), std::string::npos) << plain.output;

  // A cache that cannot be used is said and passed over; the run goes on with the catalogue's tiles.
  std::ofstream(cache) << "{broken";
  tileskip::testing::Outcome broken =
      tileskip::testing::runCommand(withCache + " bench --backend vulkan --kernel warptile --size 40 --warmup 0 --repeat 1 --no-baseline");
  EXPECT_EQ(broken.exitCode, 0) << broken.output;
  EXPECT_NE(broken.output.find("not using the tune cache"), std::string::npos) << broken.output;
  EXPECT_EQ(broken.output.find("tiles overridden"), std::string::npos) << broken.output;
}

// ---- Without a driver the backend is unavailable and the rest of the tool keeps working.

TEST(VulkanUnavailable, NoDriverIsExitThreeWithAReasonAndTheRestRuns) {
  auto run = [](const std::string& arguments) {
    // An ICD list naming no file: the loader finds no driver, as on a machine without one.
    // VK_DRIVER_FILES (loader 1.3.234+) wins over VK_ICD_FILENAMES, so both are set.
    tileskip::testing::Outcome o = tileskip::testing::runCommand("VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json " +
                                             std::string(TILESKIP_BINARY) + " " + arguments);
    return std::pair(o.exitCode, o.output);
  };
  auto [benchCode, benchOutput] = run("bench --backend vulkan --size 8");
  EXPECT_EQ(benchCode, 3) << benchOutput;
  EXPECT_NE(benchOutput.find("no Vulkan driver"), std::string::npos) << benchOutput;
  auto [listCode, listOutput] = run("list");
  EXPECT_EQ(listCode, 0) << listOutput;
  EXPECT_NE(listOutput.find("vulkan: unavailable"), std::string::npos) << listOutput;
  auto [cpuCode, cpuOutput] = run("bench --backend cpu --size 8 --repeat 1");
  EXPECT_EQ(cpuCode, 0) << cpuOutput;
}

// Regression: a driver manifest that is not JSON made the loader fail the instance
// with "out of host memory", and the error path asked a device that did not exist yet: SIGSEGV.
TEST(VulkanUnavailable, AMalformedDriverManifestIsExitThreeNotACrash) {
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_vulkan_manifest_");
  std::ofstream(dir / "icd.json") << "{ this is not json";
  std::string env = "VK_DRIVER_FILES=" + (dir / "icd.json").string() + " VK_ICD_FILENAMES=" + (dir / "icd.json").string() + " ";
  tileskip::testing::Outcome list = tileskip::testing::runCommand(env + std::string(TILESKIP_BINARY) + " list");
  EXPECT_EQ(list.exitCode, 0) << list.output;
  EXPECT_NE(list.output.find("vulkan: unavailable"), std::string::npos) << list.output;
  tileskip::testing::Outcome bench =
      tileskip::testing::runCommand(env + std::string(TILESKIP_BINARY) + " bench --backend vulkan --size 8");
  EXPECT_EQ(bench.exitCode, 3) << bench.output;
}

// ---- lavapipe ends a shader's loops after 65 535 iterations: the model of each
// kernel's loop iterations, and on lavapipe itself a refusal, never a silently short K loop.
namespace {

ComputeLimits loopLimited() {
  ComputeLimits l = lavapipeLimits();
  l.maxLoopIterations = kLavapipeLoopIterations;
  return l;
}

// The longest K the model lets the kernel run on an M x N problem on lavapipe.
std::uint64_t longestK(const KernelInfo& kernel, std::uint64_t m, std::uint64_t n) {
  std::uint64_t low = 0, high = 1u << 24;  // shaderLoopIterations grows with K
  while (low + 1 < high) {
    std::uint64_t mid = (low + high) / 2;
    (shaderLoopIterations(kernel, m, n, mid) <= kLavapipeLoopIterations ? low : high) = mid;
  }
  return low;
}

Matrix ones(int rows, int cols) {
  Matrix m(rows, cols);
  std::fill(m.values().begin(), m.values().end(), 1.0f);
  return m;
}

}  // namespace

TEST(VulkanLimits, LoopIterationsOfTheIssuesCasesAreRefusedOnLavapipe) {
  EXPECT_TRUE(isLavapipe("llvmpipe (LLVM 15.0.6, 256 bits)"));
  EXPECT_FALSE(isLavapipe("NVIDIA H200"));
  ComputeLimits lavapipe = loopLimited();
  // The issue's reproductions: naive at K = 65 540, pipelined at 524 300, the joint kernel at 52 230.
  EXPECT_TRUE(loopLimitProblem(kernelInfo("naive"), 1, 1, 65540, lavapipe).has_value());
  EXPECT_FALSE(loopLimitProblem(kernelInfo("naive"), 1, 1, 60000, lavapipe).has_value());
  EXPECT_TRUE(loopLimitProblem(kernelInfo("pipelined"), 1, 1, 524300, lavapipe).has_value());
  EXPECT_FALSE(loopLimitProblem(kernelInfo("pipelined"), 1, 1, 500000, lavapipe).has_value());
  std::optional<std::string> joint = loopLimitProblem(kernelInfo("joint-8x32"), 1, 1, 52230, lavapipe);
  ASSERT_TRUE(joint.has_value());
  EXPECT_NE(joint->find("lavapipe ends a shader's loops after 65535"), std::string::npos) << *joint;
  EXPECT_NE(joint->find("K=52230"), std::string::npos) << *joint;
  // Persistent kernels loop over block tiles as well, so their tiles are spread over dispatches:
  // what must fit is one tile's K-blocks. The lesson's 1024^3 runs in several dispatches.
  const KernelInfo& persistent = kernelInfo("joint-8x32");
  EXPECT_FALSE(loopLimitProblem(persistent, 1024, 1024, 4096, lavapipe).has_value());
  EXPECT_GT(shaderLoopIterations(persistent, 1024, 1024, 1024), kLavapipeLoopIterations);
  const std::uint64_t perDispatch = blockTilesPerDispatch(persistent, 1024, 1024, 1024, lavapipe);
  EXPECT_GE(perDispatch, 1u);
  EXPECT_LE(shaderLoopIterations(persistent, 1, 1, 1024) - 2, (kLavapipeLoopIterations - 2) / perDispatch);
  EXPECT_LT(perDispatch, blockTilesPerDispatch(persistent, 1024, 1024, 1024, lavapipeLimits()));  // no limit: all
  EXPECT_EQ(blockTilesPerDispatch(persistent, 1024, 1024, 52230, lavapipe), 0u);
  EXPECT_FALSE(loopLimitProblem(kernelInfo("pipelined"), 1024, 1024, 4096, lavapipe).has_value());
  // A device without the limit refuses nothing.
  EXPECT_FALSE(loopLimitProblem(kernelInfo("naive"), 1, 1, 1u << 30, lavapipeLimits()).has_value());
}

// The model is safe on the device: at the longest K it accepts every kernel computes every
// product of ones(1, K) · ones(K, 1) (lavapipe's cut would show as C < K), and a longer K is
// refused as unavailable rather than computed short.
TEST(VulkanLoopLimit, EveryKernelIsExactAtTheLongestKItAcceptsAndRefusesLonger) {
  VULKAN_OR_SKIP(backend, false);
  if (!isLavapipe(backend.device().name)) GTEST_SKIP() << "not lavapipe: " << backend.device().name;
  for (const KernelInfo& kernel : twinKernels()) {
    if (!backend.implements(kernel.id)) continue;
    std::uint64_t k = longestK(kernel, 1, 1);
    // A workgroup computes its whole block tile, masked or not: the dense kernels of one loop
    // iteration per K-tile would take 20 s each at K = 524 280 (measured right there: a run
    // found pipelined computing 65 535 K-tiles of 8, the model's count). The rest run here.
    if (static_cast<double>(kernel.tile.BM) * kernel.tile.BN * static_cast<double>(k) > 3e9) continue;
    SCOPED_TRACE(std::string(kernel.id) + " at K = " + std::to_string(k));
    std::unique_ptr<DeviceProblem> onDevice = backend.upload(ones(1, static_cast<int>(k)), ones(static_cast<int>(k), 1));
    onDevice->prepare(kernel);
    onDevice->poisonC();
    onDevice->run(kernel);
    EXPECT_EQ(onDevice->downloadC()(0, 0), static_cast<float>(k));
    std::uint64_t longer = k + static_cast<std::uint64_t>(kernel.tile.BK) * 8;
    std::unique_ptr<DeviceProblem> tooLong =
        backend.upload(ones(1, static_cast<int>(longer)), ones(static_cast<int>(longer), 1));
    EXPECT_THROW(tooLong->run(kernel), UnavailableError);
  }
}

// A persistent kernel whose one workgroup may take every block tile of a dispatch: at the longest
// K one tile fits, 200 x 200 has four tiles of its 128 x 128, so they run in four dispatches.
TEST(VulkanLoopLimit, APersistentKernelOverSeveralTilesIsExactAtTheLongestKItAccepts) {
  VULKAN_OR_SKIP(backend, false);
  if (!isLavapipe(backend.device().name)) GTEST_SKIP() << "not lavapipe: " << backend.device().name;
  const KernelInfo& kernel = kernelInfo("joint-8x32");
  std::uint64_t k = longestK(kernel, 1, 1);
  ASSERT_EQ(blockTilesPerDispatch(kernel, 200, 200, k, loopLimited()), 1u);
  PersistentWorkgroups one("1");  // one workgroup takes all the tiles of its dispatch
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(ones(200, static_cast<int>(k)), ones(static_cast<int>(k), 200));
  onDevice->prepare(kernel);
  onDevice->poisonC();
  onDevice->run(kernel);
  Matrix c = onDevice->downloadC();
  EXPECT_EQ(*std::min_element(c.values().begin(), c.values().end()), static_cast<float>(k)) << "K = " << k;
  EXPECT_EQ(*std::max_element(c.values().begin(), c.values().end()), static_cast<float>(k)) << "K = " << k;
}

// The lesson's problem: 1024^3, more block tiles than one dispatch may hand out on lavapipe.
// Every persistent kernel the backend has runs it in several dispatches and verifies, with the
// validation layers on.
TEST(VulkanLoopLimit, PersistentKernelsSplitTheLessonsProblemOverDispatches) {
  VULKAN_OR_SKIP(backend, true);
  if (!isLavapipe(backend.device().name)) GTEST_SKIP() << "not lavapipe: " << backend.device().name;
  const ProblemData data{generate("blocks", Operand::A, 1024, 1024, 0.25, 3), generate("blocks", Operand::B, 1024, 1024, 0.5, 4)};
  const ReferenceProduct reference = referenceProduct(data.a, data.b);
  std::unique_ptr<DeviceProblem> onDevice = backend.upload(data.a, data.b);
  int split = 0;
  for (const KernelInfo& kernel : twinKernels()) {
    if (!kernel.persistent() || !backend.implements(kernel.id) || !kernel.takes(DType::Fp32)) continue;
    if (blockTilesPerDispatch(kernel, 1024, 1024, 1024, loopLimited()) < blockTilesPerDispatch(kernel, 1024, 1024, 1024, lavapipeLimits())) {
      ++split;
    }
    const VerifyResult r = verifyKernel(backend, *onDevice, kernel, data, reference);
    EXPECT_TRUE(r.passed()) << kernel.id << ": " << r.failure;
  }
  EXPECT_GT(split, 0);
  EXPECT_EQ(backend.takeDiagnostics(), std::vector<std::string>{});
}

// The lesson's size (docs/teaching.md: --size 1024 throughout): every kernel the backend builds
// on this device runs it, none refused for lavapipe's loop limit.
TEST(VulkanLoopLimit, EveryKernelRunsAtTheLessonsSize) {
  VULKAN_OR_SKIP(backend, false);
  if (!isLavapipe(backend.device().name)) GTEST_SKIP() << "not lavapipe: " << backend.device().name;
  int kernels = 0;
  for (const KernelInfo& kernel : twinKernels()) {
    if (!backend.implements(kernel.id)) continue;
    ++kernels;
    EXPECT_EQ(backend.refusal(kernel, 1024, 1024, 1024).value_or(""), "") << kernel.id;
  }
  EXPECT_GT(kernels, 10);
}

// The reproductions through the command: refused with exit 3 and the reason, never a
// short C reported as verified. Exit 1 stays for a failed verification only.
TEST(VulkanLoopLimit, RunAndBenchRefuseALongKWithExit3) {
  VULKAN_OR_SKIP(backend, false);
  if (!isLavapipe(backend.device().name)) GTEST_SKIP() << "not lavapipe: " << backend.device().name;
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_vulkan_loop_");
  writeMatrix(dir / "a.npy", ones(1, 52230));
  writeMatrix(dir / "b.npy", ones(52230, 1));
  std::filesystem::path c = dir / "c.npy";
  std::filesystem::remove(c);
  tileskip::testing::Outcome run = tileskip::testing::runTileskip("run --backend vulkan --kernel joint-8x32 --a " +
                                                                  (dir / "a.npy").string() + " --b " + (dir / "b.npy").string() +
                                                                  " --out " + c.string());
  EXPECT_EQ(run.exitCode, 3) << run.output;
  EXPECT_NE(run.output.find("lavapipe ends a shader's loops after 65535"), std::string::npos) << run.output;
  EXPECT_FALSE(std::filesystem::exists(c));
  tileskip::testing::Outcome bench = tileskip::testing::runTileskip(
      "bench --backend vulkan --kernel naive --m 1 --n 1 --k 65540 --warmup 0 --repeat 1 --no-baseline");
  EXPECT_EQ(bench.exitCode, 3) << bench.output;
  EXPECT_NE(bench.output.find("lavapipe ends a shader's loops"), std::string::npos) << bench.output;
}

// A block-sparse W of long K on lavapipe: one block tile's K-blocks would pass lavapipe's loop
// limit in the persistent kernels (their tiles are spread over dispatches, one tile's K is not);
// inspect says so and recommends a kernel the device runs, and auto runs it.
TEST(VulkanLoopLimit, AutoAndInspectChooseOnlyAKernelTheDeviceRuns) {
  VULKAN_OR_SKIP(backend, false);
  if (!isLavapipe(backend.device().name)) GTEST_SKIP() << "not lavapipe: " << backend.device().name;
  const int m = 128, k = 56000, n = 64;
  const Matrix w = generate("blocks", Operand::A, m, k, 0.25, 1);
  const Matrix x = generate("uniform", Operand::B, k, n, 1.0, 2);
  const Inspection inspection = inspectOnBackend(backend, w, x, "W", "X");
  int refused = 0;
  for (const KernelInspection& kernel : inspection.kernels) {
    EXPECT_EQ(kernel.refusal, backend.refusal(*kernel.kernel, m, n, k).value_or("")) << kernel.kernel->id;
    refused += !kernel.refusal.empty();
  }
  EXPECT_GT(refused, 0) << "no kernel refused: the case no longer tests the refusal";
  EXPECT_FALSE(backend.refusal(*inspection.recommendation.kernel, m, n, k).has_value())
      << inspection.recommendation.kernel->id << ": " << inspection.recommendation.reason;

  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_vulkan_auto_");
  writeMatrix(dir / "w.npy", w);
  writeMatrix(dir / "x.npy", x);
  tileskip::testing::Outcome run = tileskip::testing::runTileskip(
      "run --backend vulkan --a " + (dir / "w.npy").string() + " --b " + (dir / "x.npy").string() + " --out " +
      (dir / "c.npy").string());
  EXPECT_EQ(run.exitCode, 0) << run.output;
  tileskip::testing::Outcome inspect = tileskip::testing::runTileskip(
      "inspect --backend vulkan --a " + (dir / "w.npy").string() + " --b " + (dir / "x.npy").string());
  EXPECT_EQ(inspect.exitCode, 0) << inspect.output;
  EXPECT_NE(inspect.output.find("refused here: "), std::string::npos) << inspect.output;
}

// On a CPU device the first build of kernels is announced, once per backend, before the pause it
// causes (`run` and `bench` print it); a GPU says nothing.
TEST(VulkanDevice, TheFirstShaderBuildOnACpuDeviceIsAnnouncedOnce) {
  VULKAN_OR_SKIP(shared, false);  // skips where there is no Vulkan; the test needs a backend of its own
  (void)shared;
  VulkanBackend backend(BackendOptions{.deviceIndex = -1});
  if (backend.device().isGpu) {
    EXPECT_FALSE(backend.takeFirstBuildNote().has_value());
    return;
  }
  const std::optional<std::string> note = backend.takeFirstBuildNote();
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("compiling the kernels' shaders for " + backend.device().name), std::string::npos) << *note;
  EXPECT_FALSE(backend.takeFirstBuildNote().has_value());
  tileskip::testing::Outcome run = tileskip::testing::runTileskip(
      "bench --backend vulkan --kernel pipelined --size 32 --warmup 0 --repeat 1 --no-baseline");
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("compiling the kernels' shaders"), std::string::npos) << run.output;
}

TEST(VulkanDevice, BenchGivesTheSameExitCodesAsRun) {
  VULKAN_OR_SKIP(backend, false);
  // A bad workgroup count is bad input (2), as `run` says, not a failed verification.
  tileskip::testing::Outcome bad = tileskip::testing::runCommand(
      "TILESKIP_VULKAN_PERSISTENT_WORKGROUPS=abc " + std::string(TILESKIP_BINARY) +
      " bench --backend vulkan --kernel joint-8x32 --size 64 --warmup 0 --repeat 1 --no-baseline");
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("TILESKIP_VULKAN_PERSISTENT_WORKGROUPS"), std::string::npos) << bad.output;
  if (!isLavapipe(backend.device().name)) return;
  // C beyond lavapipe's 128 MiB storage buffer: the device cannot run it (3).
  tileskip::testing::Outcome large = tileskip::testing::runTileskip(
      "bench --backend vulkan --kernel pipelined --m 8192 --n 8192 --k 1 --warmup 0 --repeat 1 --no-baseline");
  EXPECT_EQ(large.exitCode, 3) << large.output;
}

// Issue 14: a device lost mid-run (a kernel fault, a watchdog timeout, a driver reset) is exit 3
// with the reason, and `run` writes no C. The test layer (tests/vulkan_fault/) loses lavapipe's
// device on demand: here at each queue submission of a run in turn (the upload, C's poisoning,
// the kernel, C's download), until one late enough lets the run finish and write C.
TEST(VulkanDevice, ALostDeviceIsExitThreeWithTheReasonAndWritesNothing) {
  VULKAN_OR_SKIP(backend, false);
  (void)backend;  // the commands below open their own; this only skips without Vulkan
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_vulkan_lost_");
  ASSERT_EQ(tileskip::testing::runTileskip("gen --rows 64 --cols 64 --out " + (dir / "a.npy").string()).exitCode, 0);
  ASSERT_EQ(tileskip::testing::runTileskip("gen --rows 64 --cols 64 --operand B --out " + (dir / "b.npy").string()).exitCode, 0);
  auto losingAfter = [&](int submissions) {
    return "VK_ADD_LAYER_PATH=" + std::string(TILESKIP_DEVICE_LOST_LAYER_DIR) +
           " VK_INSTANCE_LAYERS=VK_LAYER_TILESKIP_device_lost TILESKIP_TEST_LOSE_DEVICE_AFTER=" + std::to_string(submissions) +
           " " + std::string(TILESKIP_BINARY) + " ";
  };
  const std::string operands = " --a " + (dir / "a.npy").string() + " --b " + (dir / "b.npy").string() + " --out ";
  int lost = 0;
  for (int after = 0; after < 16; ++after) {
    std::filesystem::path out = tileskip::testing::emptyFolder(dir, "out") / "c.npy";
    tileskip::testing::Outcome run =
        tileskip::testing::runCommand(losingAfter(after) + "run --backend vulkan --kernel pipelined" + operands + out.string());
    if (run.exitCode == 0) {  // every submission went through: C is written
      EXPECT_TRUE(std::filesystem::is_regular_file(out)) << run.output;
      break;
    }
    ++lost;
    EXPECT_EQ(run.exitCode, 3) << after << "\n" << run.output;
    EXPECT_NE(run.output.find("was lost while"), std::string::npos) << after << "\n" << run.output;
    EXPECT_TRUE(std::filesystem::is_empty(out.parent_path())) << after << ": run left a file behind";
  }
  EXPECT_GE(lost, 3) << "a run submits its upload, its kernel and its download at least";
  EXPECT_LT(lost, 16) << "the run never got through";
  tileskip::testing::Outcome bench = tileskip::testing::runCommand(
      losingAfter(1) + "bench --backend vulkan --kernel pipelined --size 64 --warmup 0 --repeat 1 --no-baseline");
  EXPECT_EQ(bench.exitCode, 3) << bench.output;
  EXPECT_NE(bench.output.find("was lost while"), std::string::npos) << bench.output;
}

// Issue 14, defects 5 and 6 through the command: a tune cache that is a FIFO, a folder or has a
// numeric "format" is reported and passed over; the run goes on (and never blocks).
TEST(VulkanDevice, AnUnusableTuneCacheIsPassedOverNeverBlocking) {
  VULKAN_OR_SKIP(backend, false);
  (void)backend;  // the commands below open their own; this only skips without Vulkan
  std::filesystem::path dir = tileskip::testing::scratchFolder("tileskip_vulkan_cache_");
  std::filesystem::path fifo = dir / "fifo.json", folder = dir / "folder.json", numeric = dir / "numeric.json";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_directories(folder);
  std::ofstream(numeric) << R"({"format": 1, "devices": {}})";
  for (const std::filesystem::path& cache : {fifo, folder, numeric}) {
    tileskip::testing::Outcome o = tileskip::testing::runCommand(
        "timeout 60 env " + std::string(kTuneCacheVariable) + "=" + cache.string() + " " + std::string(TILESKIP_BINARY) +
        " bench --backend vulkan --kernel warptile --size 32 --warmup 0 --repeat 1 --no-baseline");
    EXPECT_EQ(o.exitCode, 0) << cache << ": " << o.output;
    EXPECT_NE(o.output.find("not using the tune cache"), std::string::npos) << o.output;
  }
  std::filesystem::remove(fifo);
}
