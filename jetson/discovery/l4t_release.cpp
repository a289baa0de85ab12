#include "jetson/discovery/l4t_release.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <sstream>
#include <vector>

#include "sysfs/error.h"

namespace jetchar::jetson {
namespace {

// L4T -> JetPack, inclusive L4T ranges. Source: jetson_stats' table (rbonghi/jetson_stats
// jtop/core/jetson_variables.py, NVIDIA_JETPACK). Extend here when NVIDIA ships a release;
// an unknown release is reported as unknown, not guessed.
struct JetpackRow {
  std::array<int, 3> first;
  std::array<int, 3> last;
  std::string_view jetpack;
};
constexpr JetpackRow kJetpackTable[] = {
    {{32, 7, 1}, {32, 7, 1}, "4.6.1"}, {{32, 7, 2}, {32, 7, 2}, "4.6.2"}, {{32, 7, 3}, {32, 7, 3}, "4.6.3"},
    {{32, 7, 4}, {32, 7, 4}, "4.6.4"}, {{32, 7, 5}, {32, 7, 5}, "4.6.5"}, {{32, 7, 6}, {32, 7, 6}, "4.6.6"},
    {{35, 1, 0}, {35, 1, 0}, "5.0.2"}, {{35, 2, 1}, {35, 2, 1}, "5.1"},   {{35, 3, 1}, {35, 3, 1}, "5.1.1"},
    {{35, 4, 1}, {35, 4, 1}, "5.1.2"}, {{35, 5, 0}, {35, 5, 0}, "5.1.3"}, {{35, 6, 0}, {35, 6, 0}, "5.1.4"},
    {{35, 6, 1}, {35, 6, 3}, "5.1.5"}, {{35, 6, 4}, {35, 6, 4}, "5.1.6"}, {{36, 3, 0}, {36, 3, 0}, "6.0"},
    {{36, 4, 0}, {36, 4, 0}, "6.1"},   {{36, 4, 3}, {36, 4, 3}, "6.2"},   {{36, 4, 4}, {36, 4, 4}, "6.2.1"},
    {{36, 4, 7}, {36, 4, 7}, "6.2.1"}, {{36, 5, 0}, {36, 5, 0}, "6.2.2"}, {{38, 2, 0}, {38, 2, 99}, "7.0"},
    {{38, 4, 0}, {38, 4, 0}, "7.1"},   {{39, 2, 0}, {39, 2, 0}, "7.2"},
};

constexpr std::string_view kExpected =
    "a first line like '# R36 (release), REVISION: 4.4, GCID: 41062509, BOARD: generic, ...'";

bool parse_number(std::string_view text, int& value) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && value >= 0;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// "4.4" or "7.1" or "5" -> minor, patch.
bool parse_revision(std::string_view text, int& minor, int& patch) {
  const size_t dot = text.find('.');
  patch = 0;
  if (dot == std::string_view::npos) return parse_number(text, minor);
  return parse_number(text.substr(0, dot), minor) && parse_number(text.substr(dot + 1), patch);
}

}  // namespace

std::string L4tRelease::version() const { return fmt::format("{}.{}.{}", major, minor, patch); }

L4tRelease parse_nv_tegra_release(std::string_view text, std::string_view source) {
  const size_t newline = text.find('\n');
  const std::string_view first = trim(text.substr(0, newline));
  auto bad = [&]() -> sysfs::FormatError {
    std::string shown(first.substr(0, 120));
    for (char& c : shown) {
      if (!std::isprint(static_cast<unsigned char>(c))) c = '?';
    }
    return sysfs::FormatError(std::string(source), shown, std::string(kExpected));
  };
  if (first.rfind("# R", 0) != 0) throw bad();

  L4tRelease release;
  // Fields are ", "-separated; the first is "# R36 (release)".
  std::vector<std::string_view> fields;
  for (std::string_view rest = first; !rest.empty();) {
    const size_t comma = rest.find(',');
    fields.push_back(trim(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  const std::string_view head = fields.front().substr(3);  // after "# R"
  const size_t space = head.find(' ');
  if (!parse_number(head.substr(0, space), release.major)) throw bad();
  bool have_revision = false;
  for (size_t i = 1; i < fields.size(); ++i) {
    const size_t colon = fields[i].find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(fields[i].substr(0, colon));
    const std::string_view value = trim(fields[i].substr(colon + 1));
    if (key == "REVISION") {
      if (!parse_revision(value, release.minor, release.patch)) throw bad();
      have_revision = true;
    } else if (key == "GCID" && !value.empty()) {
      release.gcid = std::string(value);
    } else if (key == "BOARD" && !value.empty()) {
      release.board = std::string(value);
    }
  }
  if (!have_revision) throw bad();
  // R38+ adds "# KERNEL_VARIANT: oot" on a later line.
  if (newline != std::string_view::npos) {
    std::istringstream lines{std::string(text.substr(newline + 1))};
    for (std::string line; std::getline(lines, line);) {
      const std::string_view t = trim(line);
      constexpr std::string_view kVariant = "# KERNEL_VARIANT:";
      if (t.rfind(kVariant, 0) == 0) release.kernel_variant = std::string(trim(t.substr(kVariant.size())));
    }
  }
  return release;
}

L4tRelease parse_l4t_package_version(std::string_view version, std::string_view source) {
  const std::string_view upstream = trim(version.substr(0, version.find('-')));
  L4tRelease release;
  const size_t dot = upstream.find('.');
  if (dot == std::string_view::npos || !parse_number(upstream.substr(0, dot), release.major) ||
      !parse_revision(upstream.substr(dot + 1), release.minor, release.patch)) {
    throw sysfs::FormatError(std::string(source), std::string(version.substr(0, 80)),
                             "a nvidia-l4t-core version like '36.4.4-20250616085344'");
  }
  return release;
}

std::optional<std::string> jetpack_for(const L4tRelease& release) {
  const std::array<int, 3> key{release.major, release.minor, release.patch};
  for (const auto& row : kJetpackTable) {
    if (row.first <= key && key <= row.last) return std::string(row.jetpack);
  }
  return std::nullopt;
}

}  // namespace jetchar::jetson
