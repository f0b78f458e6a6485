#include "runtime_module_fixture.hpp"

#include "core/model/error.hpp"

namespace {

int answer() { return 42; }
void refuse() { throw tileskip::UnavailableError("the fixture refuses"); }

}  // namespace

extern "C" __attribute__((visibility("default"))) const tileskip::testing::FixtureModule* tileskip_test_module() {
  static const tileskip::testing::FixtureModule module{{}, &answer, &refuse};
  return &module;
}
