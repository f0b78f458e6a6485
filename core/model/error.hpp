// Errors carry the exit code the CLI reports, so a failure deep in a reader or a backend
// reaches the user as the documented code (2 bad input, 3 backend unavailable) and a message
// that says what was wrong and what to do. A missed performance target (4) is no error: the
// headline suite returns it (headlineExitCode) when asked to gate on its targets.
#pragma once

#include <stdexcept>
#include <string>

namespace tileskip {

enum class ExitCode : int {
  Ok = 0,
  VerificationFailed = 1,
  BadInput = 2,
  Unavailable = 3,
  TargetMissed = 4,  // bench --suite headline --fail-on-target: a measured ratio missed its target
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad sizes, densities, names, malformed files: the user can fix the input.
class InputError : public Error {
 public:
  explicit InputError(const std::string& message) : Error(ExitCode::BadInput, message) {}
};

// No driver, no device, not enough device memory, a device that was lost.
class UnavailableError : public Error {
 public:
  explicit UnavailableError(const std::string& message) : Error(ExitCode::Unavailable, message) {}
};

}  // namespace tileskip
