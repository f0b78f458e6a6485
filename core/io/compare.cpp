#include "core/io/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/report.hpp"
#include "core/model/error.hpp"

namespace tileskip {

namespace {

using Measures = std::vector<ComparedMeasure>;

std::optional<double> number(const nlohmann::json& value) {
  return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
}

// A bench document's verified rows, `prefix` before each key.
void benchRows(const nlohmann::json& doc, const std::string& prefix, Measures& out) {
  for (const nlohmann::json& row : doc.value("rows", nlohmann::json::array())) {
    if (!row.value("verified", false)) continue;
    ComparedMeasure m{prefix + row.value("backend", "") + " " + row.value("kernel", ""), "ms", false, std::nullopt, std::nullopt};
    if (row.contains("kernel_ms") && row["kernel_ms"].is_object()) m.now = number(row["kernel_ms"].value("median", nlohmann::json()));
    out.push_back(std::move(m));
  }
}

Measures measuresOf(const nlohmann::json& doc, const std::string& schema) {
  Measures out;
  if (schema == "tileskip.headline/1") {
    for (const nlohmann::json& m : doc.value("measures", nlohmann::json::array())) {
      const std::string id = m.value("id", std::string());
      out.push_back({id.empty() ? m.value("measure", std::string()) : id, "x", m.value("op", nlohmann::json()) != "<=",
                     std::nullopt, number(m.value("value", nlohmann::json()))});
    }
  } else if (schema == "tileskip.bench/1") {
    benchRows(doc, "", out);
  } else if (schema == "tileskip.blocksparse/1" || schema == "tileskip.activations/1") {
    for (const nlohmann::json& c : doc.value("cases", nlohmann::json::array())) {
      for (const nlohmann::json& k : c.value("kernels", nlohmann::json::array())) {
        out.push_back({c.value("case", std::string()) + ": " + k.value("backend", std::string()) + " " + k.value("kernel", std::string()),
                       "ms", false, std::nullopt, number(k.value("kernel_ms", nlohmann::json()))});
      }
    }
  } else {
    throw InputError("compare reads headline, bench, blocksparse and activations results (tileskip.headline/1, "
                     "tileskip.bench/1, tileskip.blocksparse/1, tileskip.activations/1), not " + (schema.empty() ? std::string("a file without a schema") : schema));
  }
  return out;
}

nlohmann::json parse(const std::string& text, const char* which) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string(which) + " is not JSON: " + e.what());
  }
}

}  // namespace

std::optional<double> ComparedMeasure::gainPercent() const {
  if (!base || !now || *base == 0.0) return std::nullopt;
  const double change = 100.0 * (*now - *base) / std::abs(*base);
  return higherIsBetter ? change : -change;
}

Comparison compareResults(const std::string& baseText, const std::string& newText) {
  const nlohmann::json base = parse(baseText, "the base file"), now = parse(newText, "the new file");
  const std::string baseSchema = base.is_object() ? base.value("schema", std::string()) : std::string();
  const std::string newSchema = now.is_object() ? now.value("schema", std::string()) : std::string();
  if (baseSchema != newSchema) {
    throw InputError("compare needs two results of one kind: the base is " + (baseSchema.empty() ? "unlabelled" : baseSchema) +
                     ", the new one " + (newSchema.empty() ? "unlabelled" : newSchema));
  }
  Comparison comparison;
  comparison.schema = baseSchema;
  Measures before = measuresOf(base, baseSchema), after = measuresOf(now, newSchema);
  std::map<std::string, const ComparedMeasure*> newByKey;
  for (const ComparedMeasure& m : after) newByKey.emplace(m.key, &m);
  for (ComparedMeasure m : before) {
    m.base = m.now;
    m.now.reset();
    if (auto it = newByKey.find(m.key); it != newByKey.end()) {
      m.now = it->second->now;
      newByKey.erase(it);
    }
    comparison.measures.push_back(std::move(m));
  }
  for (const ComparedMeasure& m : after) {
    if (newByKey.contains(m.key)) comparison.measures.push_back(m);  // only the new file has it
  }
  return comparison;
}

std::vector<std::string> regressions(const Comparison& comparison, double thresholdPercent) {
  std::vector<std::string> worse;
  for (const ComparedMeasure& m : comparison.measures) {
    const std::optional<double> gain = m.gainPercent();
    if (gain && *gain < -thresholdPercent) {
      worse.push_back(m.key + ": " + fixed(*m.base, 4) + " -> " + fixed(*m.now, 4) + " " + m.unit + " (" + fixed(-*gain, 1) +
                      " % worse)");
    }
  }
  return worse;
}

std::string formatComparison(const Comparison& comparison, double thresholdPercent) {
  std::vector<std::vector<std::string>> cells = {{"measure", "base", "new", "change", ""}};
  for (const ComparedMeasure& m : comparison.measures) {
    const std::optional<double> gain = m.gainPercent();
    std::string verdict;
    if (!m.base) verdict = "new";
    else if (!m.now) verdict = "gone";
    else if (gain && *gain < -thresholdPercent) verdict = "WORSE";
    else if (gain && *gain > thresholdPercent) verdict = "better";
    cells.push_back({m.key, m.base ? fixed(*m.base, 4) + " " + m.unit : "-", m.now ? fixed(*m.now, 4) + " " + m.unit : "-",
                     gain ? (*gain >= 0 ? "+" : "") + fixed(*gain, 1) + " %" : "-", verdict});
  }
  std::ostringstream out;
  out << "tileskip compare  " << comparison.schema << "; change: + is better (faster, or a higher ratio), WORSE beyond "
      << fixed(thresholdPercent, 1) << " %\n";
  out << alignColumns(cells, 1);
  return out.str();
}

}  // namespace tileskip
