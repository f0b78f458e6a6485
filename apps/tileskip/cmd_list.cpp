// tileskip list: backends found (with devices), the kernels each implements, the generators.
#include <iostream>

#include "cli_common.hpp"
#include "require.hpp"
#include "core/model/generators.hpp"
#include "core/model/mma_layout.hpp"
#include "core/io/report.hpp"

namespace tileskip::cli {

namespace {

std::string tileText(const KernelInfo& k) {
  const TileShape& t = k.tile;
  if (t.BM == 0) return "-";
  std::string text = std::to_string(t.BM) + "x" + std::to_string(t.BN) + "x" + std::to_string(t.BK);
  // Every tensor-core row takes the 16-bit inputs; tf32 (where taken) has its own, half as deep.
  auto tf32Text = [&](const std::string& kTile) {
    return k.takes(DType::Tf32) ? " (tf32: " + kTile + mmaInstruction(k, DType::Tf32).text() + ")" : std::string();
  };
  if (k.structure.mapping == ThreadMapping::WarpgroupMmaTiles) {
    text += " warpgroup " + std::to_string(t.WM) + "x" + std::to_string(t.WN) + " wgmma " + mmaInstruction(k, DType::Fp16).text();
    text += tf32Text("BK " + std::to_string(k.kTileDepth(DType::Tf32)) + ", ");
  } else {
    if (t.WM > 0) text += " warp " + std::to_string(t.WM) + "x" + std::to_string(t.WN);
    text += k.usesTensorCores() ? " mma " + mmaInstruction(k, DType::Fp16).text() + tf32Text("")
                                : " thread " + std::to_string(t.TM) + "x" + std::to_string(t.TN);
  }
  return text + ", " + std::to_string(t.threads) + " thr";
}

// "fp32" or "fp16 bf16": the input precisions the kernel takes (--dtype).
std::string inputsText(const KernelInfo& k) {
  std::string text;
  for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
    if (k.takes(type)) text += (text.empty() ? "" : " ") + std::string(dtypeName(type));
  }
  return text;
}

std::string granularityText(const KernelInfo& k) {
  if (!k.usesAPattern() && !k.usesBPattern()) return "-";
  std::string text;
  if (k.usesAPattern()) text += "A/" + std::to_string(k.aRowGranularity) + " rows";
  if (k.usesBPattern()) text += std::string(text.empty() ? "" : ", ") + "B/" + std::to_string(k.bColGranularity) + " cols";
  return text;
}

int runList(const BackendFlags& flags, const std::string& require) {
  std::vector<BackendStatus> found = discoverBackends(flags.options());
  std::cout << "Backends (compiled in: " << compiledBackendList() << ")\n";
  for (const BackendStatus& s : found) {
    if (s.backend) {
      std::cout << "  " << s.name << ": " << s.backend->device().describe() << "\n";
    } else {
      std::cout << "  " << s.name << ": unavailable: " << s.unavailableReason << "\n";
    }
  }

  std::cout << "\nKernels\n";
  std::vector<std::vector<std::string>> cells = {{"id", "#", "family", "tile", "pattern", "inputs", "implemented by", "what it teaches"}};
  for (const KernelInfo& k : kCatalogue) {
    std::string by;
    for (const BackendStatus& s : found) {
      if (s.backend && s.backend->implements(k.id)) by += (by.empty() ? "" : ",") + s.name;
    }
    cells.push_back({std::string(k.id), std::string(k.number), std::string(familyName(k.family)), tileText(k),
                     granularityText(k), inputsText(k), by.empty() ? (k.needsHopper() ? "- (a Hopper GPU, CUDA)" : "-") : by,
                     std::string(k.summary)});
  }
  std::cout << alignColumns(cells, cells.front().size());

  std::cout << "\nGenerators\n";
  for (const GeneratorInfo& g : generators()) std::cout << "  " << g.name << ": " << g.summary << "\n";
  if (!require.empty()) {  // after the listing, so the log shows what was found
    std::vector<std::string> available;
    for (const BackendStatus& s : found) {
      if (s.backend) available.push_back(s.name);
    }
    std::cout << std::flush;
    checkRequiredBackends(parseRequiredBackends(require), available, found);
  }
  return 0;
}

}  // namespace

Command addListCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("list", "backends found (with devices), kernels each implements, generators");
  auto flags = std::make_shared<BackendFlags>();
  auto require = std::make_shared<std::string>();
  app->add_option("--device", flags->device, "device index within each backend");
  app->add_option("--require", *require, "BACKEND[,...]: exit 3 naming any of these that is unavailable (a CI gate)");
  return {app, [flags, require] { return runList(*flags, *require); }, [flags, require] {
            flags->validate(false);
            if (!require->empty()) parseRequiredBackends(*require);
          }};
}

}  // namespace tileskip::cli
