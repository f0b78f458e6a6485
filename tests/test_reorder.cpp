#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/io/matrix_io.hpp"
#include "core/model/pattern.hpp"
#include "core/model/reference.hpp"
#include "core/model/reorder.hpp"

using namespace tileskip;

namespace {

std::vector<int> randomPermutation(int n, std::mt19937_64& rng) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

// A and B with their rows, columns and K scrambled together (C's elements are permuted, not
// changed), as real data arrives: nothing in it lines up with the tiles.
ReorderedProblem scramble(const Matrix& a, const Matrix& b, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Reordering r;
  r.rowOrder = randomPermutation(a.rows(), rng);
  r.colOrder = randomPermutation(b.cols(), rng);
  r.kOrder = randomPermutation(a.cols(), rng);
  return applyReordering(a, b, r);
}

// Small integers: every product and partial sum is exact in fp32, so any summation order gives
// the same bits.
Matrix integerMatrix(int rows, int cols, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution keep(density);
  std::uniform_int_distribution<int> value(-8, 8);
  Matrix m(rows, cols);
  for (float& x : m.values()) {
    int v = value(rng);
    if (keep(rng)) x = static_cast<float>(v == 0 ? 1 : v);
  }
  return m;
}

bool bitIdentical(const Matrix& x, const Matrix& y) {
  return x.rows() == y.rows() && x.cols() == y.cols() && std::equal(x.values().begin(), x.values().end(), y.values().begin());
}

double jointDensity(const Matrix& a, const Matrix& b, int aGranularity, int bGranularity) {
  return computeJointStats(buildAPattern(a, aGranularity), buildBPattern(b, bGranularity)).jointDensity;
}

double skippedBlocks(const Matrix& a, const Matrix& b, int aGranularity, int bGranularity) {
  return computeJointStats(buildAPattern(a, aGranularity), buildBPattern(b, bGranularity)).skippedKBlockFraction;
}

// reorderCost's definition, written from the patterns.
double bruteCost(const Matrix& a, const Matrix& b, int rg, int cg) {
  Pattern pa = buildAPattern(a, rg);
  Pattern pb = buildBPattern(b, cg);
  double blockArea = 0.0;
  for (int rt = 0; rt < pa.tiles; ++rt) {
    for (int ct = 0; ct < pb.tiles; ++ct) {
      for (int kb = 0; kb < pa.kBlocks; ++kb) {
        if ((pa.at(rt, kb) & pb.at(ct, kb)) != 0) {
          blockArea += static_cast<double>(pa.tileExtent(rt)) * pb.tileExtent(ct) * std::min(8, a.cols() - 8 * kb);
        }
      }
    }
  }
  double mnk = static_cast<double>(a.rows()) * b.cols() * a.cols();
  return 0.5 * (blockArea / mnk + computeJointStats(pa, pb).jointDensity);
}

struct Shape {
  int m, n, k;
};

}  // namespace

TEST(Reorder, PermuteRowsAndColsMoveWhatTheOrderSays) {
  Matrix m = integerMatrix(5, 7, 1.0, 1);
  std::vector<int> rows = {4, 0, 3, 1, 2};
  std::vector<int> cols = {6, 5, 4, 3, 2, 1, 0};
  Matrix pr = permuteRows(m, rows);
  Matrix pc = permuteCols(m, cols);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 7; ++j) {
      EXPECT_EQ(pr(i, j), m(rows[static_cast<std::size_t>(i)], j));
      EXPECT_EQ(pc(i, j), m(i, cols[static_cast<std::size_t>(j)]));
    }
  }
}

TEST(Reorder, RefusesWhatIsNoPermutation) {
  Matrix m(3, 3);
  EXPECT_THROW(permuteRows(m, std::vector<int>{0, 1}), InputError);
  EXPECT_THROW(permuteRows(m, std::vector<int>{0, 1, 1}), InputError);
  EXPECT_THROW(permuteCols(m, std::vector<int>{0, 1, 3}), InputError);
  EXPECT_THROW(permuteCols(m, std::vector<int>{-1, 1, 2}), InputError);
  EXPECT_THROW(findReordering(Matrix(3, 4), Matrix(5, 2), 8, 8), InputError);
  EXPECT_THROW(findReordering(Matrix(3, 4), Matrix(4, 2), 0, 8), InputError);
  Reordering r = identityReordering(3, 3, 3);
  EXPECT_THROW(restoreC(Matrix(3, 4), r), InputError);
  r.kOrder = {2, 2, 0};
  EXPECT_THROW(applyReordering(m, m, r), InputError);
}

class ReorderExact : public ::testing::TestWithParam<Shape> {};

// The whole round trip: reorder, multiply the reordered problem, restore C. With integer values
// it is bit-identical to the unreordered product; with generated values it equals the exact
// reference to fp32 rounding (only the K summation order differs).
TEST_P(ReorderExact, RestoreCGivesTheUnpermutedProduct) {
  auto [m, n, k] = GetParam();
  for (int g : {8, 32, 64, 128}) {
    for (double density : {0.0, 0.05, 0.5, 1.0}) {
      SCOPED_TRACE("granularity " + std::to_string(g) + " density " + std::to_string(density));
      Matrix a = integerMatrix(m, k, density, 11);
      Matrix b = integerMatrix(k, n, density, 12);
      Reordering r = findReordering(a, b, g, g == 128 ? 32 : g);
      ASSERT_NO_THROW(checkReordering(r, m, n, k));
      ReorderedProblem p = applyReordering(a, b, r);
      EXPECT_TRUE(bitIdentical(restoreC(referenceExact(p.a, p.b), r), referenceExact(a, b)));
      EXPECT_TRUE(bitIdentical(restoreC(referenceSgemm(p.a, p.b), r), referenceSgemm(a, b)));

      Matrix ga = generate("relu", Operand::A, m, k, std::max(density, 0.1), 21);
      Matrix gb = generate("uniform", Operand::B, k, n, std::max(density, 0.1), 22);
      Reordering gr = findReordering(ga, gb, g, g);
      ReorderedProblem gp = applyReordering(ga, gb, gr);
      ReferenceProduct reference = referenceProduct(ga, gb);
      Matrix restored = restoreC(referenceSgemm(gp.a, gp.b), gr);
      ErrorReport e = compareToReference(restored, reference);
      EXPECT_TRUE(e.passed) << e.summary();
      EXPECT_LE(e.relativeFrobenius, 1e-6);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OddShapes, ReorderExact,
                         ::testing::Values(Shape{1, 1, 1}, Shape{37, 29, 45}, Shape{67, 130, 13}, Shape{129, 65, 97},
                                           Shape{8, 8, 8}, Shape{200, 3, 300}));

TEST(Reorder, SingleNonZeroProductLandsWhereItWas) {
  Matrix a(45, 37), b(37, 51);
  a(44, 17) = 3.0f;
  b(17, 2) = -5.0f;
  Reordering r = findReordering(a, b, 32, 32);
  ReorderedProblem p = applyReordering(a, b, r);
  Matrix c = restoreC(referenceExact(p.a, p.b), r);
  for (int i = 0; i < c.rows(); ++i) {
    for (int j = 0; j < c.cols(); ++j) ASSERT_EQ(c(i, j), i == 44 && j == 2 ? -15.0f : 0.0f);
  }
  // Everything else is zero: one row tile, one column tile and one K-block keep work.
  EXPECT_LT(jointDensity(p.a, p.b, 32, 32), jointDensity(a, b, 32, 32) + 1e-12);
}

TEST(Reorder, AllZeroOperandsStayExact) {
  Matrix a(33, 17), b(17, 9);
  Reordering r = findReordering(a, b, 8, 8);
  ASSERT_NO_THROW(checkReordering(r, 33, 9, 17));
  ReorderedProblem p = applyReordering(a, b, r);
  Matrix c = restoreC(referenceSgemm(p.a, p.b), r);
  EXPECT_EQ(c.countNonZeros(), 0u);
}

TEST(Reorder, CostMatchesItsDefinition) {
  for (Shape s : {Shape{37, 29, 45}, Shape{130, 70, 203}}) {
    Matrix a = generate("relu", Operand::A, s.m, s.k, 0.3, 3);
    Matrix b = generate("uniform", Operand::B, s.k, s.n, 0.2, 4);
    for (int g : {8, 32, 64}) EXPECT_NEAR(reorderCost(a, b, g, 32), bruteCost(a, b, g, 32), 1e-12) << g;
    EXPECT_DOUBLE_EQ(reorderCost(Matrix(s.m, s.k), b, 8, 8), 0.0);
  }
}

// Scrambled block-sparse operands: the blocks are still there, only the order hides them.
// Reordering must find them again (a reordering that did nothing would leave joint density ~1).
TEST(Reorder, RecoversScrambledBlocks) {
  for (int g : {32, 64}) {
    GeneratorOptions options;
    options.block = g;
    Matrix a = generate("blocks", Operand::A, 512, 384, 0.5, 7, options);
    Matrix b = generate("blocks", Operand::B, 384, 256, 0.5, 8, options);
    double original = jointDensity(a, b, g, g);
    ReorderedProblem s = scramble(a, b, 99);
    double scrambled = jointDensity(s.a, s.b, g, g);
    Reordering r = findReordering(s.a, s.b, g, g);
    ReorderedProblem p = applyReordering(s.a, s.b, r);
    double reordered = jointDensity(p.a, p.b, g, g);
    EXPECT_GT(scrambled, 0.9) << g;
    EXPECT_LE(reordered, original + 1e-9) << g;
    EXPECT_GT(skippedBlocks(p.a, p.b, g, g), 0.6) << g;
    EXPECT_TRUE(bitIdentical(restoreC(referenceExact(p.a, p.b), r), referenceExact(s.a, s.b)));
  }
}

// The identity competes, so a reordering is never worse than the input by its own measure,
// even where there is nothing to gather.
TEST(Reorder, NeverWorseThanTheInput) {
  for (const char* generator : {"uniform", "relu", "segments", "banded", "nm"}) {
    Matrix a = generate(generator, Operand::A, 200, 136, 0.3, 5);
    Matrix b = generate(generator, Operand::B, 136, 150, 0.3, 6);
    Reordering r = findReordering(a, b, 32, 32);
    ReorderedProblem p = applyReordering(a, b, r);
    EXPECT_LE(reorderCost(p.a, p.b, 32, 32), reorderCost(a, b, 32, 32) + 1e-12) << generator;
  }
}

// Not a test: the before/after table of docs/real-data.md. Run with
//   tileskip_tests --gtest_also_run_disabled_tests --gtest_filter='*ReorderStudy*'
// (TILESKIP_REORDER_STUDY_SIZE sets the size, default 4096).
TEST(ReorderStudy, DISABLED_BeforeAndAfter) {
  int size = 4096;
  if (const char* s = std::getenv("TILESKIP_REORDER_STUDY_SIZE")) size = std::atoi(s);
  struct Case {
    std::string name;
    Matrix a, b;
  };
  std::vector<Case> cases;
  GeneratorOptions g64;
  g64.block = 64;
  {
    Matrix a = generate("blocks", Operand::A, size, size, 0.5, 1, g64);
    Matrix b = generate("blocks", Operand::B, size, size, 0.5, 2, g64);
    ReorderedProblem s = scramble(a, b, 3);
    cases.push_back({"blocks G=64 0.5/0.5 scrambled", std::move(s.a), std::move(s.b)});
  }
  {
    Matrix a = generate("blocks", Operand::A, size, size, 0.25, 1, g64);
    Matrix b = generate("uniform", Operand::B, size, size, 1.0, 2);
    ReorderedProblem s = scramble(a, b, 3);
    cases.push_back({"blocks G=64 A 0.25 x dense B, scrambled", std::move(s.a), std::move(s.b)});
  }
  {
    Matrix a = generate("banded", Operand::A, size, size, 0.1, 1);
    Matrix b = generate("banded", Operand::B, size, size, 0.1, 2);
    ReorderedProblem s = scramble(a, b, 3);
    cases.push_back({"banded 0.1/0.1 scrambled", std::move(s.a), std::move(s.b)});
  }
  for (double d : {0.5, 0.05, 0.01}) {
    cases.push_back({"uniform " + std::to_string(d).substr(0, 4) + " both",
                     generate("uniform", Operand::A, size, size, d, 1), generate("uniform", Operand::B, size, size, d, 2)});
  }
  cases.push_back({"relu A 0.1 x dense B", generate("relu", Operand::A, size, size, 0.1, 1),
                   generate("uniform", Operand::B, size, size, 1.0, 2)});
  cases.push_back({"relu A 0.3 x uniform B 0.3", generate("relu", Operand::A, size, size, 0.3, 1),
                   generate("uniform", Operand::B, size, size, 0.3, 2)});
  std::printf("%-42s %4s %4s | %7s %7s | %7s %7s | %8s %8s | %8s %8s | %8s\n", "case", "R", "G", "A pat", "after",
              "B pat", "after", "joint", "after", "skipKB", "after", "find s");
  for (const Case& c : cases) {
    for (auto [rg, cg] : {std::pair{64, 32}, std::pair{32, 32}, std::pair{8, 32}, std::pair{128, 64}}) {
      auto start = std::chrono::steady_clock::now();
      Reordering r = findReordering(c.a, c.b, rg, cg);
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ReorderedProblem p = applyReordering(c.a, c.b, r);
      std::printf("%-42s %4d %4d | %7.4f %7.4f | %7.4f %7.4f | %8.4f %8.4f | %8.4f %8.4f | %8.3f\n", c.name.c_str(),
                  rg, cg, buildAPattern(c.a, rg).density(), buildAPattern(p.a, rg).density(),
                  buildBPattern(c.b, cg).density(), buildBPattern(p.b, cg).density(), jointDensity(c.a, c.b, rg, cg),
                  jointDensity(p.a, p.b, rg, cg), skippedBlocks(c.a, c.b, rg, cg), skippedBlocks(p.a, p.b, rg, cg),
                  seconds);
    }
  }
}

// Not a test: the same table for the cases scripts/fetch-real-data.sh wrote (in
// $TILESKIP_REAL_DATA, default data/real under the working folder).
TEST(ReorderStudy, DISABLED_RealData) {
  std::filesystem::path folder = "data/real";
  if (const char* s = std::getenv("TILESKIP_REAL_DATA")) folder = s;
  std::ifstream in(folder / "cases.json");
  if (!in) GTEST_SKIP() << "no " << (folder / "cases.json") << ": run scripts/fetch-real-data.sh";
  nlohmann::json manifest = nlohmann::json::parse(in);
  std::printf("%-48s %4s %4s | %8s %8s | %8s %8s | %8s\n", "case", "R", "G", "joint", "after", "skipKB", "after",
              "find s");
  for (const auto& c : manifest["cases"]) {
    Matrix a = readMatrix(folder / c["a"].get<std::string>());
    Matrix b = readMatrix(folder / c["b"].get<std::string>());
    for (auto [rg, cg] : {std::pair{64, 32}, std::pair{32, 32}, std::pair{8, 32}}) {
      auto start = std::chrono::steady_clock::now();
      Reordering r = findReordering(a, b, rg, cg);
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ReorderedProblem p = applyReordering(a, b, r);
      std::printf("%-48s %4d %4d | %8.4f %8.4f | %8.4f %8.4f | %8.3f\n", c["name"].get<std::string>().c_str(), rg, cg,
                  jointDensity(a, b, rg, cg), jointDensity(p.a, p.b, rg, cg), skippedBlocks(a, b, rg, cg),
                  skippedBlocks(p.a, p.b, rg, cg), seconds);
    }
  }
}
