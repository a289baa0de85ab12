#include "sysfs/external_attribute.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <stdexcept>

namespace jetchar::sysfs {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, ExternalAttributeHandler, std::less<>> handlers;
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string_view scheme_of(std::string_view path) {
  const std::size_t colon = path.find(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  for (std::size_t k = 0; k < colon; ++k) {
    const char c = path[k];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return {};
  }
  return path.substr(0, colon);
}

}  // namespace

void register_external_attributes(const std::string& scheme, ExternalAttributeHandler handler) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().handlers[scheme] = std::move(handler);
}

bool is_external_attribute(std::string_view path) { return !scheme_of(path).empty(); }

const ExternalAttributeHandler& external_attribute_handler(std::string_view path) {
  const std::string_view scheme = scheme_of(path);
  std::lock_guard<std::mutex> lock(registry().mutex);
  const auto it = registry().handlers.find(scheme);
  if (scheme.empty() || it == registry().handlers.end()) {
    throw std::runtime_error(
        fmt::format("{}: no handler for '{}:' controls in this process (is the library that "
                    "owns them, e.g. NVML, registered?)",
                    path, scheme));
  }
  return it->second;
}

}  // namespace jetchar::sysfs
