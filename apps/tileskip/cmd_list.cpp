// tileskip list: backends found (with devices), the kernels each implements, the generators; as a
// table for people or as JSON for tools (the docs check reads the catalogue from it).
#include <nlohmann/json.hpp>

#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "require.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/model/mma_layout.hpp"
#include "core/io/provenance.hpp"
#include "core/io/report.hpp"

namespace tileskip::cli {

namespace {

// The schema id of `list --format json` (docs/results.md), beside those of core/io/provenance.hpp:
// its number changes only when a field is renamed or removed.
constexpr const char* kListSchema = "tileskip.list/1";

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
  if (k.usesAPattern()) text += "A/" + std::to_string(k.aGranularity) + " rows";
  if (k.usesBPattern()) text += std::string(text.empty() ? "" : ", ") + "B/" + std::to_string(k.bGranularity) + " cols";
  return text;
}

// The structure's enumerators as the JSON names them (snake case of the C++ names): a new
// enumerator is a compile warning here until it has its name.
std::string_view mappingName(ThreadMapping mapping) {
  switch (mapping) {
    case ThreadMapping::None: return "none";
    case ThreadMapping::OutputDownColumns: return "output_down_columns";
    case ThreadMapping::OutputAlongRows: return "output_along_rows";
    case ThreadMapping::ColumnOfOutputs: return "column_of_outputs";
    case ThreadMapping::ThreadTile: return "thread_tile";
    case ThreadMapping::WarpTile: return "warp_tile";
    case ThreadMapping::MmaTiles: return "mma_tiles";
    case ThreadMapping::WarpgroupMmaTiles: return "warpgroup_mma_tiles";
    case ThreadMapping::RowStrips: return "row_strips";
  }
  return "?";
}

std::string_view loopName(MainLoop loop) {
  switch (loop) {
    case MainLoop::Global: return "global";
    case MainLoop::Staged: return "staged";
    case MainLoop::Vectorized: return "vectorized";
    case MainLoop::DoubleBuffered: return "double_buffered";
    case MainLoop::Hoisted: return "hoisted";
    case MainLoop::KBlockList: return "k_block_list";
    case MainLoop::StageRing: return "stage_ring";
    case MainLoop::GatherHoisted: return "gather_hoisted";
    case MainLoop::PackedBlocks: return "packed_blocks";
    case MainLoop::StreamedBlocks: return "streamed_blocks";
    case MainLoop::GatherRing: return "gather_ring";
    case MainLoop::BulkCopyRing: return "bulk_copy_ring";
    case MainLoop::SwizzledGatherRing: return "swizzled_gather_ring";
  }
  return "?";
}

std::string_view schedulingName(Scheduling scheduling) {
  switch (scheduling) {
    case Scheduling::TilePerBlock: return "tile_per_block";
    case Scheduling::Persistent: return "persistent";
    case Scheduling::SplitBlocks: return "split_blocks";
  }
  return "?";
}

std::string_view skipScopeName(SkipScope scope) {
  switch (scope) {
    case SkipScope::None: return "none";
    case SkipScope::Thread: return "thread";
    case SkipScope::Warp: return "warp";
    case SkipScope::Block: return "block";
    case SkipScope::Topology: return "topology";
  }
  return "?";
}

nlohmann::json vendorJson(VendorRoutine routine) {
  switch (routine) {
    case VendorRoutine::None: return nullptr;
    case VendorRoutine::CublasGemm: return "cublas_gemm";
    case VendorRoutine::CusparseCsrSpmm: return "cusparse_csr_spmm";
    case VendorRoutine::OpenblasSgemm: return "openblas_sgemm";
  }
  return "?";
}

// The backends (available or why not), each catalogue row with what implements it here, the
// generators: schema tileskip.list/1 (docs/results.md).
std::string listJson(const std::vector<BackendStatus>& found) {
  nlohmann::json backends = nlohmann::json::array();
  for (const BackendStatus& s : found) {
    if (s.backend) {
      const DeviceInfo& d = s.backend->device();
      backends.push_back({{"name", s.name}, {"available", true}, {"device", d.name}, {"driver", d.driver},
                          {"api", d.api}, {"is_gpu", d.isGpu}, {"reason", nullptr}});
    } else {
      backends.push_back({{"name", s.name}, {"available", false}, {"device", nullptr}, {"driver", nullptr},
                          {"api", nullptr}, {"is_gpu", nullptr}, {"reason", s.unavailableReason}});
    }
  }
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelInfo& k : kCatalogue) {
    nlohmann::json by = nlohmann::json::array();
    for (const BackendStatus& s : found) {
      if (s.backend && s.backend->implements(k.id)) by.push_back(s.name);
    }
    nlohmann::json dtypes = nlohmann::json::array();
    for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
      if (k.takes(type)) dtypes.push_back(dtypeName(type));
    }
    const TileShape& t = k.tile;
    const KernelStructure& st = k.structure;
    kernels.push_back({{"id", k.id},
                       {"number", k.number},
                       {"family", familyName(k.family)},
                       {"stem", k.stem},
                       {"source", k.source},
                       {"tile", {{"BM", t.BM}, {"BN", t.BN}, {"BK", t.BK}, {"WM", t.WM}, {"WN", t.WN}, {"TM", t.TM},
                                 {"TN", t.TN}, {"threads", t.threads}}},
                       {"a_granularity", k.aGranularity},
                       {"b_granularity", k.bGranularity},
                       {"structure", {{"mapping", mappingName(st.mapping)},
                                      {"loop", loopName(st.loop)},
                                      {"scheduling", schedulingName(st.scheduling)},
                                      {"skip", skipScopeName(st.skip)},
                                      {"k_block_list", st.kBlockList},
                                      {"ring_stages", st.ringStages},
                                      {"vendor", vendorJson(st.vendor)}}},
                       {"dtypes", dtypes},
                       {"glsl_twin", k.hasGlslTwin()},
                       {"needs_hopper", k.needsHopper()},
                       {"summary", k.summary},
                       {"implemented_by", by}});
  }
  nlohmann::json generatorList = nlohmann::json::array();
  for (const GeneratorInfo& g : generators()) generatorList.push_back({{"name", g.name}, {"summary", g.summary}});
  nlohmann::json document = {{"schema", kListSchema},
                             {"tool", {{"version", toolVersion()}, {"commit", toolCommit()}}},
                             {"backends", backends},
                             {"kernels", kernels},
                             {"generators", generatorList}};
  return jsonDocumentText(document);
}

std::string listTable(const std::vector<BackendStatus>& found) {
  std::ostringstream out;
  out << "Backends (compiled in: " << compiledBackendList() << ")\n";
  for (const BackendStatus& s : found) {
    const std::string line = "  " + s.name + ": " + (s.backend ? s.backend->device().describe() : "unavailable: " + s.unavailableReason);
    out << wrapText(line, outputColumns(), 4) << "\n";
  }

  out << "\nKernels\n";
  std::vector<std::vector<std::string>> cells = {{"id", "#", "family", "tile", "pattern", "dtypes", "implemented by", "what it teaches"}};
  for (const KernelInfo& k : kCatalogue) {
    std::string by;
    for (const BackendStatus& s : found) {
      if (s.backend && s.backend->implements(k.id)) by += (by.empty() ? "" : ",") + s.name;
    }
    cells.push_back({std::string(k.id), std::string(k.number), std::string(familyName(k.family)), tileText(k),
                     granularityText(k), inputsText(k), by.empty() ? (k.needsHopper() ? "- (a Hopper GPU, CUDA)" : "-") : by,
                     std::string(k.summary)});
  }
  // On a terminal: which kernels there are, where they run, then how each is built.
  static constexpr std::size_t kKeep[] = {0, 1, 2, 5, 6, 4, 3, 7};
  out << alignColumns(cells, cells.front().size(), kKeep);

  out << "\nGenerators\n";
  for (const GeneratorInfo& g : generators()) out << wrapText("  " + std::string(g.name) + ": " + std::string(g.summary), outputColumns(), 4) << "\n";
  return out.str();
}

void validateListFormat(const std::string& format) {
  if (format != "table" && format != "json") throw InputError("unknown list format '" + format + "'; use table or json");
}

int runList(const BackendFlags& flags, const std::string& require, const std::string& format) {
  validateListFormat(format);
  std::vector<BackendStatus> found = discoverBackends(flags.options());
  std::cout << (format == "json" ? listJson(found) : listTable(found));
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
  auto format = std::make_shared<std::string>("table");
  app->add_option("--device", flags->device, "device index within each backend");
  app->add_option("--require", *require, "BACKEND[,...]: exit 3 naming any of these that is unavailable (a CI gate)");
  app->add_option("--format", *format, "table or json (schema tileskip.list/1)")->capture_default_str();
  return {app, [flags, require, format] { return runList(*flags, *require, *format); }, [flags, require, format] {
            flags->validate(false);
            if (!require->empty()) parseRequiredBackends(*require);
            validateListFormat(*format);
          }};
}

}  // namespace tileskip::cli
