// The tensor cores as the tensor-core rows of the catalogue use them: which instruction a warp
// (or warpgroup) issues for an input type, and where the values of one warp-level MMA sit among
// the 32 lanes' registers. The layouts are the PTX ISA's for mma.sync.m16n8k16 (fp16, bf16) and
// m16n8k8 (tf32); written here once, they are what K13's and S10's twins load (ldmatrix gives
// exactly them), what the CPU emulator's MMA rebuilds the warp's operands from, what
// threadOutputs() gives a lane of C, and what the viewer's "mma" view draws.
#pragma once

#include <string>
#include <vector>

#include "core/model/catalogue.hpp"
#include "core/model/dtype.hpp"

namespace tileskip {

// One tensor-core instruction: an m x n x k product added onto an m x n fp32 accumulator.
struct MmaInstruction {
  int m = 0, n = 0, k = 0;
  bool warpgroup = false;  // wgmma: four warps issue it together, A and B read from shared memory
  std::string text() const;  // "16x8x16", "64x256x16"
};

// What a tensor-core kernel issues for `dtype`: MmaTiles warps mma.sync m16n8k16 for 16-bit
// inputs and m16n8k8 for tf32; WarpgroupMmaTiles warpgroups wgmma m64 nWN k16, k8 for tf32.
// InputError for a kernel without tensor cores or inputs it does not take.
MmaInstruction mmaInstruction(const KernelInfo& kernel, DType dtype);

enum class MmaOperand { A, B, C };

// One value of a warp MMA's operand: its row and column in A (16 x k), B (k x 8) or C (16 x 8).
struct FragmentValue {
  int row = 0, col = 0;
};

// The values lane `lane` (0..31) holds of `operand` of one mma.sync for `dtype`, in register
// order: value i sits in register i / valuesPerRegister(inputs, operand), the first of a register's
// two 16-bit values in its low half. With g = lane / 4 and t = lane % 4:
//   fp16, bf16 (m16n8k16): A rows g, g + 8 by columns 2t, 2t + 1 then 2t + 8, 2t + 9 (8 values);
//                          B rows 2t, 2t + 1, 2t + 8, 2t + 9 of column g (4 values)
//   tf32 (m16n8k8):        A rows g, g + 8 by columns t, then t + 4 (4 values); B rows t, t + 4 of column g
//   C, every input:        rows g, g + 8 by columns 2t, 2t + 1 (4 fp32 accumulators)
std::vector<FragmentValue> mmaFragment(DType dtype, MmaOperand operand, int lane);

// Values per 32-bit register: two 16-bit inputs, one tf32 input or fp32 accumulator.
constexpr int valuesPerRegister(DType dtype, MmaOperand operand) {
  return operand != MmaOperand::C && (dtype == DType::Fp16 || dtype == DType::Bf16) ? 2 : 1;
}

}  // namespace tileskip
