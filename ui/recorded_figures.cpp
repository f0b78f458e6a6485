#include "ui/recorded_figures.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/model/catalogue.hpp"
#include "core/model/error.hpp"

namespace tileskip::ui {

extern const std::string_view kRecordedFiguresJson;

namespace {

RecordedFigures parseFigures() {
  RecordedFigures f;
  try {
    nlohmann::json json = nlohmann::json::parse(kRecordedFiguresJson);
    f.source = json.at("source").get<std::string>();
    f.device = json.at("device").get<std::string>();
    f.date = json.at("date").get<std::string>();
    f.size = json.at("size").get<int>();
    for (const nlohmann::json& k : json.at("kernels")) {
      f.kernels.push_back({k.at("backend").get<std::string>(), k.at("kernel").get<std::string>(), k.at("dtype").get<std::string>(),
                           k.at("ms").get<double>(), k.at("gflops").get<double>()});
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("the embedded recorded figures do not parse: ") + e.what());
  }
  return f;
}

std::size_t cataloguePosition(const std::string& id) {
  for (std::size_t i = 0; i < kCatalogue.size(); ++i) {
    if (kCatalogue[i].id == id) return i;
  }
  return kCatalogue.size();
}

}  // namespace

std::string RecordedKernel::label() const {
  const KernelInfo* info = findKernelInfo(kernel);
  if (info == nullptr) return kernel;
  if (!info->number.empty()) return std::string(info->number);
  return info->runs(VendorRoutine::CublasGemm) ? "cuBLAS" : kernel;
}

std::vector<RecordedKernel> RecordedFigures::of(const std::string& backend, const std::string& dtype) const {
  std::vector<RecordedKernel> rows;
  for (const RecordedKernel& k : kernels) {
    if (k.backend == backend && k.dtype == dtype) rows.push_back(k);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RecordedKernel& a, const RecordedKernel& b) {
    return cataloguePosition(a.kernel) < cataloguePosition(b.kernel);
  });
  return rows;
}

const RecordedFigures& recordedFigures() {
  static const RecordedFigures figures = parseFigures();
  return figures;
}

}  // namespace tileskip::ui
