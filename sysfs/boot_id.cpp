#include "sysfs/boot_id.h"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace jetchar::sysfs {
namespace {

// 8-4-4-4-12 hex digits, as %pU prints a UUID.
bool is_uuid(const std::string& text) {
  if (text.size() != 36) return false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const bool dash = k == 8 || k == 13 || k == 18 || k == 23;
    if (dash ? text[k] != '-' : !std::isxdigit(static_cast<unsigned char>(text[k]))) return false;
  }
  return true;
}

}  // namespace

std::string boot_id(const Root& root) {
  std::ifstream in(root.resolve("/proc/sys/kernel/random/boot_id"));
  std::string text;
  if (!in || !std::getline(in, text)) return {};
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return is_uuid(text) ? text : std::string();
}

}  // namespace jetchar::sysfs
