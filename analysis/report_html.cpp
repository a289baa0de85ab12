#include "analysis/report_html.h"

#include <fmt/format.h>

namespace jetchar::analysis::report_html {

using nlohmann::json;

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string cell(const json& v) {
  if (v.is_null()) return "–";
  if (v.is_number_float()) return fmt::format("{:.4g}", v.get<double>());
  if (v.is_string()) return escape(v.get<std::string>());
  return escape(v.dump());
}

}  // namespace

std::string table(const json& rows, const std::vector<std::pair<std::string, std::string>>& columns,
                  const std::string& id) {
  std::string out = fmt::format("<table id=\"{}\"><thead><tr>", id);
  for (const auto& [key, heading] : columns) out += "<th>" + escape(heading) + "</th>";
  out += "</tr></thead><tbody>";
  for (const json& row : rows) {
    out += "<tr>";
    for (const auto& [key, heading] : columns)
      out += "<td>" + cell(row.contains(key) ? row.at(key) : json(nullptr)) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

std::string ChartCanvases::next(const std::string& kind, const std::string& caption, int width, int height) {
  return fmt::format(
      "<figure><canvas id=\"chart-{}\" data-chart=\"{}\" width=\"{}\" height=\"{}\"></canvas><figcaption>{}"
      "</figcaption></figure>\n",
      count_++, kind, width, height, escape(caption));
}

}  // namespace jetchar::analysis::report_html
