// CHECK(call) for the lab's CUDA probes and harnesses: a CUDA (or cuBLAS) call whose status is not 0 prints
// itself, its file and line on stderr and ends the program.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    const auto status_ = (call);                                                                  \
    if (status_ != 0) {                                                                           \
      std::fprintf(stderr, "%s failed (%d) at %s:%d\n", #call, static_cast<int>(status_), __FILE__, \
                   __LINE__);                                                                     \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)
