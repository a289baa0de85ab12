// The report's HTML building blocks, shared by its pages (analysis/report.cpp and the pages in
// analysis/report_*.cpp): escaping, tables from report_data()'s JSON rows, and the numbered chart
// canvases report.js draws into.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jetchar::analysis::report_html {

/// A value or JSON null.
nlohmann::json optional_json(const std::optional<double>& v);

/// `text` with &, <, > and " escaped.
std::string escape(std::string_view text);

/// A table from rows of JSON objects with the given columns (key, heading); a missing or null cell
/// is "–", a number has 4 significant digits.
std::string table(const nlohmann::json& rows, const std::vector<std::pair<std::string, std::string>>& columns,
                  const std::string& id);

/// Charts are numbered in page order (chart-0, chart-1, ...): report.js finds each canvas by its
/// data-chart (a kind and an index into report_data()'s JSON: "pareto:0"), and tests by its id.
class ChartCanvases {
 public:
  /// A full-width chart.
  std::string next(const std::string& kind, const std::string& caption) { return next(kind, caption, 1000, 420); }
  /// A chart of its own size (a row of smaller charts sits in a <div class="chart-row">).
  std::string next(const std::string& kind, const std::string& caption, int width, int height);

 private:
  int count_ = 0;
};

}  // namespace jetchar::analysis::report_html
