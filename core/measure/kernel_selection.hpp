// Which kernels a command runs: a --kernel list ("all", ids separated by commas, "auto") read
// against the catalogue and a backend. The CLI and the Python module share it, so both accept
// the same names and refuse the rest with the same messages.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/measure/auto_choice.hpp"
#include "core/model/backend.hpp"
#include "core/measure/bench.hpp"
#include "core/measure/inspect.hpp"
#include "core/model/problem.hpp"

namespace tileskip {

// The ids of a comma list ("a,b"), each checked against the catalogue; empty for "" or "all".
// "auto" is left out (see namesAuto). InputError for an unknown id and for a list that names none (",").
std::vector<const KernelInfo*> parseKernelList(const std::string& list);

// Whether a --kernel list holds "auto": the kernel inspect recommends for the operands.
bool namesAuto(const std::string& list);

// "all" or a comma list of catalogue ids, filtered to what `backend` implements and to the
// kernels it runs on `dtype` (Backend::takes; nullopt: any precision). Throws InputError for an
// unknown id, and, when `strict`, for an id the backend lacks or one that does not take `dtype`
// (naming those that do).
std::vector<const KernelInfo*> selectKernels(const std::string& list, const Backend& backend, bool strict,
                                             std::optional<DType> dtype = DType::Fp32);

// auto's choice for these operands on this backend (core/measure/auto_choice.hpp): inspect's
// recommendation, or the fastest of the kernels it timed where the model is blind. The spec's
// dtype is the operands'.
Recommendation chooseAuto(Backend& backend, const Matrix& a, const Matrix& b, const ProblemSpec& spec);

// What bench runs on `backend` for a --kernel list: selectKernels(), and where the list holds
// auto, inspect's choice (autoKernel, autoReason) with the dense reference beside it, so the
// report shows the speedup auto measured, not only the one predicted. No kernels when the
// backend implements none of the list.
BenchTarget benchTarget(Backend& backend, const std::string& list, bool strict, const Matrix& a, const Matrix& b,
                        const ProblemSpec& spec);

}  // namespace tileskip
