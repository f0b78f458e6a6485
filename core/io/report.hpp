// Bench reports as an aligned table (for people), CSV (for spreadsheets and plots) and JSON
// (for tools). Each carries its context: devices, sizes, densities, seed, date, verification.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>

#include "core/measure/bench.hpp"

namespace tileskip {

enum class ReportFormat { Table, Csv, Json };

// Throws InputError for anything but table, csv or json.
ReportFormat parseReportFormat(std::string_view name);

// The name of a format as --format spells it.
std::string_view reportFormatName(ReportFormat format);

// The format of a report written to `path` (--out): the extension's (.csv, .json, .txt or .table
// for a table) where --format was not given; else --format, which must agree with such an
// extension (InputError naming both otherwise). Another extension, or none, takes --format
// (`formatFlag`, default table).
ReportFormat outputFileFormat(std::string_view formatFlag, bool formatGiven, const std::string& path);

std::string formatReport(const BenchReport& report, ReportFormat format);
std::string formatTable(const BenchReport& report);
std::string formatCsv(const BenchReport& report);
std::string formatJson(const BenchReport& report);

// A CSV field: quoted (RFC 4180) where it holds a comma, a quote or a line break.
std::string csvField(const std::string& text);

// `value` with `decimals` digits after the point; "inf" or "n/a" where it is not finite.
std::string fixed(double value, int decimals);

// How wide text for people may be: tables, notes and help fit a 100-column terminal, or the
// COLUMNS the environment gives (at least 40), unless the user asks for everything (`--wide`:
// 0, no limit). One setting for the process, like a locale, so every table and note agrees.
inline constexpr std::size_t kTerminalColumns = 100;
std::size_t outputColumns();
void setOutputColumns(std::size_t columns);

// `text` broken at spaces into lines of at most `width` columns (0: one line; a word longer than
// the width stands on its own line), each line after the first indented by `indent` spaces.
std::string wrapText(std::string_view text, std::size_t width, std::size_t indent = 0);

// A line of a report's heading: `label` in a column of 10, `text` wrapped to outputColumns() under
// that column; ends with a newline.
std::string headingLine(const std::string& label, const std::string& text);

// Renders rows of cells as columns padded to their widest cell; the first row is the header.
// The first `textColumns` columns align left, the rest (numbers) right. Where the columns are
// wider than outputColumns(), columns are left out, last in `keep` order first (the columns
// `keep` does not name follow it, left to right), and a line after the table names them.
std::string alignColumns(const std::vector<std::vector<std::string>>& rows, std::size_t textColumns = 3,
                         std::span<const std::size_t> keep = {});

// A JSON document as the reports write it: indented by 2, a newline after. Text that is not UTF-8
// (a file name in another encoding) is written with U+FFFD in place of its invalid bytes, so a
// report on such a file is still valid JSON instead of an internal error.
std::string jsonDocumentText(const nlohmann::json& document);

}  // namespace tileskip
