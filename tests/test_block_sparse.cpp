// The packed block-sparse format: packing and unpacking, the transposed index, the .npz files in
// SciPy's BSR layout (written and read here, and by SciPy itself), and every malformed file refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "core/io/block_sparse_io.hpp"
#include "core/io/npz_io.hpp"
#include "core/model/block_sparse.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "run_command.hpp"

using namespace tileskip;
namespace fs = std::filesystem;

namespace {

// A matrix whose blocks of `block` are kept with probability `density`, each kept block's values
// random and, where `sparseInside`, half of them zero (a kept block need not be full).
Matrix blockMatrix(int rows, int cols, int block, double density, std::uint64_t seed, bool sparseInside = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::bernoulli_distribution kept(density), zero(0.5);
  Matrix m(rows, cols);
  for (int i = 0; i < rows; i += block) {
    for (int j = 0; j < cols; j += block) {
      if (!kept(rng)) continue;
      for (int r = i; r < std::min(rows, i + block); ++r) {
        for (int c = j; c < std::min(cols, j + block); ++c) m(r, c) = sparseInside && zero(rng) ? 0.0f : value(rng);
      }
    }
  }
  return m;
}

bool sameValues(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  return std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

template <typename F>
std::string inputErrorOf(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

fs::path scratch(const std::string& name) { return tileskip::testing::scratchFolder("tileskip_block_sparse_") / name; }

// The arrays of a valid 128 x 192 file in blocks of 64 (2 x 3 blocks, 3 kept), to break one at a time.
NpzArrays validArrays() { return blockSparseToNpz(packBlocks(blockMatrix(128, 192, 64, 0.5, 7), 64, DType::Fp32)); }

NpyArray int32Array(std::vector<std::int32_t> values) {
  NpyArray a;
  a.descr = "<i4";
  a.shape = {static_cast<std::int64_t>(values.size())};
  a.data.resize(values.size() * 4);
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

}  // namespace

TEST(BlockSparse, PacksKeptBlocksAndUnpacksToTheSameMatrix) {
  for (int block : kPackedBlockSizes) {
    for (auto [rows, cols] : {std::pair{256, 384}, std::pair{100, 70}, std::pair{1, 1}, std::pair{129, 17}}) {
      const Matrix dense = blockMatrix(rows, cols, block, 0.4, static_cast<std::uint64_t>(rows * 31 + cols + block), true);
      const BlockSparseMatrix packed = packBlocks(dense, block, DType::Fp32);
      EXPECT_EQ(packed.blockRows(), (rows + block - 1) / block);
      EXPECT_EQ(packed.blockCols(), (cols + block - 1) / block);
      EXPECT_TRUE(sameValues(packed.toDense(), dense)) << rows << "x" << cols << " in blocks of " << block;
      // A block is kept exactly where it holds a non-zero.
      const std::vector<std::uint8_t> mask = packed.blockMask();
      for (int i = 0; i < packed.blockRows(); ++i) {
        for (int j = 0; j < packed.blockCols(); ++j) {
          bool any = false;
          for (int r = i * block; r < std::min(rows, (i + 1) * block); ++r) {
            for (int c = j * block; c < std::min(cols, (j + 1) * block); ++c) any = any || dense(r, c) != 0.0f;
          }
          EXPECT_EQ(mask[static_cast<std::size_t>(i) * packed.blockCols() + j] != 0, any) << i << "," << j;
        }
      }
    }
  }
}

TEST(BlockSparse, EdgeCases) {
  const Matrix zero(96, 160);
  const BlockSparseMatrix none = packBlocks(zero, 32, DType::Fp32);
  EXPECT_EQ(none.keptBlocks(), 0);
  EXPECT_EQ(none.density(), 0.0);
  EXPECT_TRUE(sameValues(none.toDense(), zero));

  Matrix single(96, 160);
  single(70, 129) = -3.5f;
  const BlockSparseMatrix one = packBlocks(single, 32, DType::Fp32);
  ASSERT_EQ(one.keptBlocks(), 1);
  EXPECT_EQ(one.blockRowOf()[0], 2);
  EXPECT_EQ(one.columnIndices()[0], 4);
  EXPECT_EQ(one.blockValuesOf(0)[6 * 32 + 1], -3.5f);
  EXPECT_TRUE(sameValues(one.toDense(), single));

  Matrix full(64, 128);
  full.fill(1.0f);
  const BlockSparseMatrix every = packBlocks(full, 16, DType::Fp32);
  EXPECT_EQ(every.keptBlocks(), 4 * 8);
  EXPECT_EQ(every.density(), 1.0);

  // An empty block row in the middle, NaN kept as a non-zero.
  Matrix holes(192, 64);
  holes(0, 0) = 1.0f;
  holes(130, 63) = std::numeric_limits<float>::quiet_NaN();
  const BlockSparseMatrix gaps = packBlocks(holes, 64, DType::Fp32);
  EXPECT_EQ(std::vector<std::int32_t>(gaps.rowPointers().begin(), gaps.rowPointers().end()), (std::vector<std::int32_t>{0, 1, 1, 2}));
}

TEST(BlockSparse, TransposedIndexWalksTheSameBlocksColumnByColumn) {
  const Matrix dense = blockMatrix(320, 448, 32, 0.3, 11);
  const BlockSparseMatrix packed = packBlocks(dense, 32, DType::Fp32);
  // Brute force: every kept block of column j, in block-row order.
  std::size_t position = 0;
  for (int j = 0; j < packed.blockCols(); ++j) {
    EXPECT_EQ(packed.columnPointers()[j], static_cast<std::int32_t>(position));
    for (int i = 0; i < packed.blockRows(); ++i) {
      for (int e = packed.rowPointers()[i]; e < packed.rowPointers()[i + 1]; ++e) {
        if (packed.columnIndices()[e] != j) continue;
        ASSERT_LT(position, packed.transposedBlocks().size());
        EXPECT_EQ(packed.transposedBlocks()[position], e) << "column " << j;
        ++position;
      }
    }
  }
  EXPECT_EQ(position, static_cast<std::size_t>(packed.keptBlocks()));
  EXPECT_EQ(packed.columnPointers().back(), packed.keptBlocks());
  // The transpose read through that index is the dense transpose: values shared, nothing copied.
  Matrix transposed(packed.cols(), packed.rows());
  for (int j = 0; j < packed.blockCols(); ++j) {
    for (int p = packed.columnPointers()[j]; p < packed.columnPointers()[j + 1]; ++p) {
      const int e = packed.transposedBlocks()[p], i = packed.blockRowOf()[e];
      for (int r = 0; r < 32; ++r) {
        for (int c = 0; c < 32; ++c) transposed(j * 32 + c, i * 32 + r) = packed.blockValuesOf(e)[r * 32 + c];
      }
    }
  }
  for (int r = 0; r < dense.rows(); ++r) {
    for (int c = 0; c < dense.cols(); ++c) ASSERT_EQ(transposed(c, r), dense(r, c));
  }
}

TEST(BlockSparse, MaskKeepsItsBlocksZerosAndAll) {
  Matrix dense = blockMatrix(128, 128, 64, 1.0, 3);
  const std::vector<std::uint8_t> mask = {1, 0, 0, 1};
  dense(0, 0) = 0.0f;
  Matrix zeros(128, 128);  // a kept block whose values are all zero stays kept
  const BlockSparseMatrix packed = packMaskedBlocks(zeros, mask, 64, DType::Fp32);
  EXPECT_EQ(packed.keptBlocks(), 2);
  EXPECT_EQ(packed.blockMask(), mask);
  const BlockSparseMatrix masked = packMaskedBlocks(dense, mask, 64, DType::Fp32);
  const Matrix back = masked.toDense();
  for (int r = 0; r < 128; ++r) {
    for (int c = 0; c < 128; ++c) {
      const bool keptBlock = (r < 64) == (c < 64);
      ASSERT_EQ(back(r, c), keptBlock ? dense(r, c) : 0.0f);
    }
  }
  EXPECT_NE(inputErrorOf([&] { packMaskedBlocks(dense, std::vector<std::uint8_t>{1, 0, 1}, 64, DType::Fp32); }).find("has 4"), std::string::npos);
  EXPECT_NE(inputErrorOf([&] { packBlocks(dense, 48, DType::Fp32); }).find("16, 32, 64 or 128"), std::string::npos);
}

TEST(BlockSparse, ValuesAreRoundedToTheDtypeAndHeldAsItsWords) {
  Matrix dense(32, 32);
  dense(1, 2) = 1.0f + 1.0f / 1024.0f;  // fp16 holds it, bf16 does not
  const BlockSparseMatrix half = packBlocks(dense, 32, DType::Fp16);
  const BlockSparseMatrix brain = packBlocks(dense, 32, DType::Bf16);
  EXPECT_EQ(half.blockValuesOf(0)[34], dense(1, 2));
  EXPECT_EQ(brain.blockValuesOf(0)[34], 1.0f);
  EXPECT_EQ(half.halfWords()[34], halfBits(DType::Fp16, dense(1, 2)));
  EXPECT_EQ(half.valueBytes(), 2 * 32 * 32);
  EXPECT_EQ(packBlocks(dense, 32, DType::Fp32).valueBytes(), 4 * 32 * 32);
}

TEST(BlockSparse, FromPartsSortsEachRowsColumnsAndRefusesWhatIsNotAMatrix) {
  // Block row 0 keeps columns 2 and 0, given out of order; their values move with them.
  std::vector<float> values(2 * 16 * 16);
  values[0] = 2.0f;        // the block at column 2
  values[256] = 5.0f;      // the block at column 0
  const BlockSparseMatrix m = BlockSparseMatrix::fromParts(32, 48, 16, DType::Fp32, {0, 2, 2}, {2, 0}, values, "t");
  EXPECT_EQ(m.columnIndices()[0], 0);
  EXPECT_EQ(m.columnIndices()[1], 2);
  EXPECT_EQ(m.toDense()(0, 0), 5.0f);
  EXPECT_EQ(m.toDense()(0, 32), 2.0f);

  auto why = [&](std::vector<std::int32_t> pointers, std::vector<std::int32_t> columns, std::size_t valueCount) {
    return inputErrorOf([&] {
      BlockSparseMatrix::fromParts(32, 48, 16, DType::Fp32, pointers, columns, std::vector<float>(valueCount), "bad.npz");
    });
  };
  EXPECT_NE(why({0, 2}, {0, 1}, 512).find("row pointers hold 2 entries"), std::string::npos);
  EXPECT_NE(why({1, 2, 2}, {0, 1}, 512).find("start at 1"), std::string::npos);
  EXPECT_NE(why({0, 2, 1}, {0, 1}, 512).find("fall from"), std::string::npos);
  EXPECT_NE(why({0, 1, 3}, {0, 1}, 512).find("end at 3"), std::string::npos);
  EXPECT_NE(why({0, 2, 2}, {0, 1}, 500).find("need 512"), std::string::npos);
  EXPECT_NE(why({0, 2, 2}, {0, 3}, 512).find("outside 0 .. 2"), std::string::npos);
  EXPECT_NE(why({0, 2, 2}, {1, 1}, 512).find("twice"), std::string::npos);
  EXPECT_NE(why({0, 2, 2}, {-1, 1}, 512).find("outside"), std::string::npos);
  for (const std::string& message : {why({0, 2}, {0, 1}, 512), why({0, 2, 2}, {1, 1}, 512)}) {
    EXPECT_EQ(message.rfind("bad.npz: ", 0), 0u) << message;
  }
}

TEST(BlockSparseFile, RoundTripsEveryDtype) {
  for (DType dtype : {DType::Fp32, DType::Fp16, DType::Bf16}) {
    Matrix dense = blockMatrix(256, 128, 32, 0.35, 5, true);
    roundMatrix(dense, dtype);
    const BlockSparseMatrix packed = packBlocks(dense, 32, dtype);
    const fs::path path = scratch(std::string("round_") + std::string(dtypeName(dtype)) + ".npz");
    writeBlockSparse(path, packed);
    const BlockSparseMatrix back = readBlockSparse(path);
    EXPECT_EQ(back, packed) << dtypeName(dtype);
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_TRUE(sameValues(back.toDense(), dense));
  }
  // An empty matrix and a single kept block survive too.
  for (int kept : {0, 1}) {
    Matrix dense(128, 64);
    if (kept) dense(127, 63) = 1.5f;
    const BlockSparseMatrix packed = packBlocks(dense, 64, DType::Fp32);
    const fs::path path = scratch("few.npz");
    writeBlockSparse(path, packed);
    EXPECT_EQ(readBlockSparse(path), packed);
  }
}

TEST(BlockSparseFile, PartialBlocksCannotBeWrittenInSciPysLayout) {
  const BlockSparseMatrix packed = packBlocks(blockMatrix(100, 64, 64, 1.0, 1), 64, DType::Fp32);
  const fs::path path = scratch("partial.npz");
  EXPECT_NE(inputErrorOf([&] { writeBlockSparse(path, packed); }).find("partial blocks"), std::string::npos);
  EXPECT_FALSE(fs::exists(path));
}

TEST(BlockSparseFile, EveryMalformedFileIsRefusedWithWhatIsWrong) {
  auto why = [](NpzArrays arrays) { return inputErrorOf([&] { blockSparseFromNpz(arrays, "w.npz"); }); };
  EXPECT_EQ(why(validArrays()), "");
  {
    NpzArrays a = validArrays();
    a.erase("indptr");
    EXPECT_NE(why(a).find("no 'indptr'"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    a["format"] = npyText("csr");
    EXPECT_NE(why(a).find("'csr', not 'bsr'"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    a["indices"] = int32Array({0, 0, 1});  // a column twice in one row
    a["indptr"] = int32Array({0, 2, 3});
    EXPECT_NE(why(a).find("twice"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    a["indices"] = int32Array({0, 3, 1});
    EXPECT_NE(why(a).find("outside 0 .. 2"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    a["indptr"] = int32Array({0, 1});
    EXPECT_NE(why(a).find("row pointers hold 2 entries"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    a["indices"] = int32Array({0, 1});
    EXPECT_NE(why(a).find("'indices' holds 2 entries"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    NpyArray& data = a["data"];
    data.shape = {static_cast<std::int64_t>(data.data.size() / 4 / (64 * 32)), 64, 32};
    EXPECT_NE(why(a).find("square blocks"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    std::int64_t shape[] = {128, 200};
    std::memcpy(a["shape"].data.data(), shape, sizeof shape);
    EXPECT_NE(why(a).find("does not divide"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    a["dtype"] = npyText("bf16");  // random fp32 values are not bf16 ones
    EXPECT_NE(why(a).find("does not represent"), std::string::npos);
    a["dtype"] = npyText("int8");
    EXPECT_NE(why(a).find("not fp32, fp16 or bf16"), std::string::npos);
  }
  {
    NpzArrays a = validArrays();
    NpyArray& data = a["data"];
    data.shape = {data.shape[0] / 2, 8, 8};
    data.data.resize(static_cast<std::size_t>(data.shape[0] * 64 * 4));
    EXPECT_NE(why(a).find("not one the format takes"), std::string::npos);
  }
}

TEST(BlockSparseFile, DamagedArchivesAreRefused) {
  const fs::path path = scratch("damaged.npz");
  writeBlockSparse(path, packBlocks(blockMatrix(128, 128, 64, 0.5, 2), 64, DType::Fp32));
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Cut short anywhere: no zip directory, or a member that ends early.
  for (std::size_t keep : {std::size_t{0}, std::size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    const std::string message = inputErrorOf([&] { readNpz(bytes.data(), keep, "cut.npz", 1 << 20); });
    EXPECT_NE(message.find("cut.npz"), std::string::npos) << keep;
  }
  // A member that is not an array, and an array longer than the reader takes.
  EXPECT_NE(inputErrorOf([&] { readNpz(bytes.data(), bytes.size(), "small.npz", 100); }).find("more than this reader accepts"), std::string::npos);
  EXPECT_NE(inputErrorOf([] { readBlockSparse("/nonexistent/w.npz"); }).find("cannot open"), std::string::npos);
}
