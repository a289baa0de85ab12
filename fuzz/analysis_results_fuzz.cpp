// Results readers (CSV, JSONL), modes file and power trace: any input either parses or throws
// InputError naming the file; nothing else may escape, and parsed records are usable downstream.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analysis/config_point.h"
#include "analysis/input_error.h"
#include "analysis/modes_file.h"
#include "analysis/pareto.h"
#include "analysis/power_trace.h"
#include "analysis/results_file.h"

namespace {

template <typename F>
void expect_parse_or_input_error(F&& parse) {
  try {
    parse();
  } catch (const jetchar::analysis::InputError& e) {
    if (e.where().file != "fuzz.in") std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::analysis;
  const std::string text(reinterpret_cast<const char*>(data), size);
  expect_parse_or_input_error([&] {
    auto records = parse_results_csv(text, "fuzz.in");
    auto points = aggregate(records);
    pareto_groups(points);
  });
  expect_parse_or_input_error([&] { aggregate(parse_results_jsonl(text, "fuzz.in")); });
  expect_parse_or_input_error([&] { parse_modes_csv(text, "fuzz.in"); });
  expect_parse_or_input_error([&] { parse_power_trace(text, "fuzz.in"); });
  return 0;
}
