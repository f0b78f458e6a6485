// What each fuzz target does with one input, shared by the libFuzzer targets (clang,
// TILESKIP_FUZZ=ON) and the regression test that replays fuzz/regressions/ in every build.
// An input may be accepted or rejected with an InputError; anything else (another exception,
// a broken round trip, a crash, undefined behaviour) is a bug. Broken invariants throw
// HarnessFailure, so the replay test reports them and a fuzz target aborts on them.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace tileskip::fuzz {

// Readers refuse headers that declare more elements than this, so a fuzzer never spends its
// memory on a plausible-looking 2^31-element header.
inline constexpr std::int64_t kMaxFuzzElements = std::int64_t{1} << 16;

struct Outcome {
  bool accepted = false;
  std::string message;  // the InputError's text when rejected
};

class HarnessFailure : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// readMatrixMarket on the bytes; an accepted matrix must survive writeMatrixMarket and a re-read.
Outcome checkMatrixMarket(std::span<const std::uint8_t> data);

// readNpy on the bytes through a seekable and a non-seekable stream, which must agree; an
// accepted matrix must survive writeNpy and a re-read bit for bit.
Outcome checkNpy(std::span<const std::uint8_t> data);

// The bytes as arguments of `tileskip`, one per line, through Cli::parse (parse and validate,
// nothing runs): the exit code must be 0 or 2, or the command would run; never an internal error.
Outcome checkCli(std::span<const std::uint8_t> data);

}  // namespace tileskip::fuzz
