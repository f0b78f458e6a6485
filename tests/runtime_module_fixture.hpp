// A run-time module made for the tests (runtime_module_fixture.cpp, built as
// libtileskip_test_module.so beside tileskip_tests): what core/process/runtime_module.hpp loads and
// checks, without the viewer's or the CUDA backend's libraries.
#pragma once

#include "core/process/runtime_module.hpp"

namespace tileskip::testing {

struct FixtureModule {
  ModuleStamp<1, int, double> stamp;
  int (*answer)();      // 42
  void (*refuse)();     // throws UnavailableError("the fixture refuses")
};

}  // namespace tileskip::testing
