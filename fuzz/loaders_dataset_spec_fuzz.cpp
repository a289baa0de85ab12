// Data set specifications (KIND[/SPLIT]:PATH[?KEY=VALUE&...]) from the CLI and experiment specs:
// any text either parses into a known kind with a split and a path, or is refused with
// std::invalid_argument. Synthetic specs are also opened (shape and option parsing, no files).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "loaders/dataset_spec.h"

using namespace jetchar::loaders;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  DatasetSpec spec;
  try {
    spec = DatasetSpec::parse(text);
  } catch (const std::invalid_argument& e) {
    check(std::string_view(e.what()).find("data set") != std::string_view::npos);
    return 0;
  }
  bool known = false;
  for (const auto& [name, description] : dataset_kinds()) known = known || name == spec.kind;
  check(known);
  check(!spec.split.empty() && !spec.path.empty() && spec.text == text);
  for (const auto& [key, value] : spec.options) check(!key.empty() && key.find('&') == std::string::npos);
  (void)spec.default_transform();
  if (spec.kind == "synthetic") {
    try {
      const auto dataset = open_dataset(spec);
      check(dataset->size() >= 1 && !dataset->info().layout.input_shape.empty());
      for (auto dim : dataset->info().layout.input_shape) check(dim >= 1);
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
