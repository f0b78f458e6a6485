#include "core/model/mma_layout.hpp"

#include "core/model/error.hpp"
#include "core/model/tile_layout.hpp"

namespace tileskip {

std::string MmaInstruction::text() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

MmaInstruction mmaInstruction(const KernelInfo& kernel, DType dtype) {
  if (!kernel.usesTensorCores()) throw InputError("kernel '" + std::string(kernel.id) + "' does not use tensor cores");
  if (!kernel.takes(dtype)) {
    throw InputError("kernel '" + std::string(kernel.id) + "' does not take " + std::string(dtypeName(dtype)) + " inputs");
  }
  // A tf32 value is a 32-bit word: the same 16 bytes along K hold half as many, so the MMA is half as deep.
  const int k = dtype == DType::Tf32 ? 8 : 16;
  if (kernel.structure.mapping == ThreadMapping::WarpgroupMmaTiles) return {4 * kMmaTileRows, kernel.tile.WN, k, true};
  return {kMmaTileRows, kMmaTileCols, k, false};
}

std::vector<FragmentValue> mmaFragment(DType dtype, MmaOperand operand, int lane) {
  if (lane < 0 || lane >= kWarpLanes) throw InputError("lane " + std::to_string(lane) + " is outside a warp (0..31)");
  if (dtype == DType::Fp32) throw InputError("no tensor-core MMA takes fp32 inputs");
  const int g = lane / 4, t = lane % 4;
  std::vector<FragmentValue> values;
  if (operand == MmaOperand::C) {
    for (int row : {g, g + 8}) {
      for (int col : {2 * t, 2 * t + 1}) values.push_back({row, col});
    }
  } else if (dtype == DType::Tf32) {
    if (operand == MmaOperand::A) {
      for (int col : {t, t + 4}) {
        for (int row : {g, g + 8}) values.push_back({row, col});
      }
    } else {
      for (int row : {t, t + 4}) values.push_back({row, g});
    }
  } else if (operand == MmaOperand::A) {
    for (int col : {2 * t, 2 * t + 8}) {
      for (int row : {g, g + 8}) {
        for (int half = 0; half < 2; ++half) values.push_back({row, col + half});
      }
    }
  } else {
    for (int row : {2 * t, 2 * t + 8}) {
      for (int half = 0; half < 2; ++half) values.push_back({row + half, g});
    }
  }
  return values;
}

}  // namespace tileskip
