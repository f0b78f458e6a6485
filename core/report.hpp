// Bench reports as an aligned table (for people), CSV (for spreadsheets and plots) and JSON
// (for tools). Each carries its context: devices, sizes, densities, seed, date, verification.
#pragma once

#include <string>
#include <string_view>

#include "core/bench.hpp"

namespace tileskip {

enum class ReportFormat { Table, Csv, Json };

// Throws InputError for anything but table, csv or json.
ReportFormat parseReportFormat(std::string_view name);

std::string formatReport(const BenchReport& report, ReportFormat format);
std::string formatTable(const BenchReport& report);
std::string formatCsv(const BenchReport& report);
std::string formatJson(const BenchReport& report);

// `value` with `decimals` digits after the point; "inf" or "n/a" where it is not finite.
std::string fixed(double value, int decimals);

// Renders rows of cells as columns padded to their widest cell; the first row is the header.
// The first `textColumns` columns align left, the rest (numbers) right.
std::string alignColumns(const std::vector<std::vector<std::string>>& rows, std::size_t textColumns = 3);

}  // namespace tileskip
