#include "core/model/pattern.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"
#include "core/model/integer_math.hpp"

namespace tileskip {

namespace {

void checkGranularity(int granularity) {
  if (granularity < 1) {
    throw InputError("pattern granularity " + std::to_string(granularity) + " must be at least 1");
  }
}

Pattern emptyPattern(Operand operand, int extent, int depth, int granularity) {
  checkGranularity(granularity);
  Pattern p;
  p.operand = operand;
  p.granularity = granularity;
  p.extent = extent;
  p.depth = depth;
  p.tiles = ceilDiv(extent, granularity);
  p.kBlocks = ceilDiv(depth, kKBlock);
  p.bits.assign(static_cast<std::size_t>(p.tiles) * static_cast<std::size_t>(p.kBlocks), 0);
  return p;
}

}  // namespace

int Pattern::tileExtent(int tile) const {
  int start = tile * granularity;
  return std::min(granularity, extent - start);
}

double Pattern::density() const {
  if (bits.empty()) return 0.0;
  std::uint64_t set = 0;
  for (std::uint8_t byte : bits) set += static_cast<std::uint64_t>(std::popcount(byte));
  return static_cast<double>(set) / (static_cast<double>(tiles) * static_cast<double>(depth));
}

Pattern fullPattern(Operand operand, int extent, int depth, int granularity) {
  Pattern p = emptyPattern(operand, extent, depth, granularity);
  for (int t = 0; t < p.tiles; ++t) {
    for (int kb = 0; kb < p.kBlocks; ++kb) {
      int realBits = std::min(kKBlock, depth - kb * kKBlock);
      p.bits[static_cast<std::size_t>(t) * p.kBlocks + kb] = static_cast<std::uint8_t>((1u << realBits) - 1);
    }
  }
  return p;
}

KernelPatterns kernelPatterns(const KernelInfo& kernel, const Matrix& a, const Matrix& b) {
  constexpr int kStandIn = 32;
  int aGranularity = kernel.usesAPattern() ? kernel.aGranularity : kStandIn;
  int bGranularity = kernel.usesBPattern() ? kernel.bGranularity : kStandIn;
  return {kernel.usesAPattern() ? buildAPattern(a, aGranularity)
                                : fullPattern(Operand::A, a.rows(), a.cols(), aGranularity),
          kernel.usesBPattern() ? buildBPattern(b, bGranularity)
                                : fullPattern(Operand::B, b.cols(), b.rows(), bGranularity)};
}

JointStats kernelWork(const KernelInfo& kernel, const Matrix& a, const Matrix& b) {
  KernelPatterns patterns = kernelPatterns(kernel, a, b);
  return computeJointStats(patterns.a, patterns.b);
}

std::size_t patternBytes(int extent, int depth, int granularity) {
  checkGranularity(granularity);
  return static_cast<std::size_t>(ceilDiv(extent, granularity)) * static_cast<std::size_t>(ceilDiv(depth, kKBlock));
}

Pattern buildAPattern(const Matrix& a, int aGranularity) {
  Pattern p = emptyPattern(Operand::A, a.rows(), a.cols(), aGranularity);
  for (int r = 0; r < a.rows(); ++r) {
    std::uint8_t* tileBits = &p.bits[static_cast<std::size_t>(r / aGranularity) * p.kBlocks];
    const float* row = &a.data()[static_cast<std::size_t>(r) * a.cols()];
    for (int k = 0; k < a.cols(); ++k) {
      if (row[k] != 0.0f) tileBits[k / kKBlock] |= static_cast<std::uint8_t>(1u << (k % kKBlock));
    }
  }
  return p;
}

Pattern buildBPattern(const Matrix& b, int bGranularity) {
  Pattern p = emptyPattern(Operand::B, b.cols(), b.rows(), bGranularity);
  for (int k = 0; k < b.rows(); ++k) {
    const float* row = &b.data()[static_cast<std::size_t>(k) * b.cols()];
    auto bit = static_cast<std::uint8_t>(1u << (k % kKBlock));
    int kBlock = k / kKBlock;
    for (int c = 0; c < b.cols(); ++c) {
      if (row[c] != 0.0f) p.bits[static_cast<std::size_t>(c / bGranularity) * p.kBlocks + kBlock] |= bit;
    }
  }
  return p;
}

double JointStats::idealSpeedup() const {
  return jointDensity > 0.0 ? 1.0 / jointDensity : std::numeric_limits<double>::infinity();
}

JointStats computeJointStats(const Pattern& a, const Pattern& b) {
  if (a.operand != Operand::A || b.operand != Operand::B) {
    throw InputError("joint statistics need an A-pattern and a B-pattern");
  }
  if (a.depth != b.depth) {
    throw InputError("A-pattern has K=" + std::to_string(a.depth) + " but B-pattern has K=" + std::to_string(b.depth));
  }
  JointStats s;
  s.rowTiles = a.tiles;
  s.colTiles = b.tiles;
  s.aGranularity = a.granularity;
  s.bGranularity = b.granularity;
  s.m = a.extent;
  s.n = b.extent;
  s.k = a.depth;
  s.workMap.assign(static_cast<std::size_t>(s.rowTiles) * s.colTiles, 0.0f);
  s.skippedKBlocks.assign(s.workMap.size(), 0);
  double keptWork = 0.0;
  std::uint64_t skipped = 0;
  for (int rt = 0; rt < a.tiles; ++rt) {
    const std::uint8_t* aBits = &a.bits[static_cast<std::size_t>(rt) * a.kBlocks];
    for (int ct = 0; ct < b.tiles; ++ct) {
      const std::uint8_t* bBits = &b.bits[static_cast<std::size_t>(ct) * b.kBlocks];
      int kept = 0;
      int zeroBlocks = 0;
      for (int kb = 0; kb < a.kBlocks; ++kb) {
        auto joint = static_cast<std::uint8_t>(aBits[kb] & bBits[kb]);
        kept += std::popcount(joint);
        zeroBlocks += joint == 0;
      }
      std::size_t tile = static_cast<std::size_t>(rt) * s.colTiles + ct;
      s.workMap[tile] = static_cast<float>(kept) / static_cast<float>(s.k);
      s.skippedKBlocks[tile] = zeroBlocks;
      skipped += static_cast<std::uint64_t>(zeroBlocks);
      keptWork += static_cast<double>(kept) * a.tileExtent(rt) * b.tileExtent(ct);
    }
  }
  s.jointDensity = keptWork / (static_cast<double>(s.m) * s.n * s.k);
  s.skippedKBlockFraction = static_cast<double>(skipped) / (static_cast<double>(s.workMap.size()) * a.kBlocks);
  return s;
}

}  // namespace tileskip
