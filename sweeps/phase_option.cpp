#include "sweeps/phase_option.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace jetchar::sweeps {

namespace {

constexpr std::string_view kValid =
    "seq=TOKENS,steps=N (required), batch=N, accumulate=N, lr=RATE, warmup=FRACTION, e.g. seq=128,steps=900";

[[noreturn]] void fail(std::string_view text, const std::string& what) {
  throw std::invalid_argument(fmt::format("phase '{}': {}; valid: {}", text, what, kValid));
}

std::uint32_t count(std::string_view text, std::string_view key, std::string_view value, std::uint32_t minimum,
                    std::uint32_t maximum) {
  std::uint64_t parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc{} || end != value.data() + value.size() || value.empty() || parsed < minimum ||
      parsed > maximum) {
    fail(text, fmt::format("{}={} is not a whole number from {} to {}", key, value, minimum, maximum));
  }
  return static_cast<std::uint32_t>(parsed);
}

double real(std::string_view text, std::string_view key, std::string_view value, bool (*valid)(double),
            std::string_view range) {
  double parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc{} || end != value.data() + value.size() || value.empty() || !valid(parsed)) {
    fail(text, fmt::format("{}={} is not {}", key, value, range));
  }
  return parsed;
}

}  // namespace

proto::PhaseSpec parse_phase_option(std::string_view text) {
  proto::PhaseSpec phase;
  std::set<std::string_view> seen;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view pair = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto equals = pair.find('=');
    if (equals == std::string_view::npos) fail(text, fmt::format("'{}' is not KEY=VALUE", pair));
    const auto key = pair.substr(0, equals);
    const auto value = pair.substr(equals + 1);
    if (!seen.insert(key).second) fail(text, fmt::format("{} is given twice", key));
    constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
    if (key == "seq") {
      phase.set_sequence_length(count(text, key, value, 8, 65536));
    } else if (key == "steps") {
      phase.set_steps(count(text, key, value, 1, kMax));
    } else if (key == "batch") {
      phase.set_batch_size(count(text, key, value, 1, kMax));
    } else if (key == "accumulate") {
      phase.set_accumulate(count(text, key, value, 1, kMax));
    } else if (key == "lr") {
      phase.set_learning_rate(real(
          text, key, value, [](double v) { return std::isfinite(v) && v > 0; }, "a finite number above 0"));
    } else if (key == "warmup") {
      phase.set_warmup_proportion(real(
          text, key, value, [](double v) { return v >= 0 && v < 1; }, "a fraction from 0 up to (not including) 1"));
    } else {
      fail(text, fmt::format("unknown key '{}'", key));
    }
    if (comma == std::string_view::npos) break;
  }
  if (phase.sequence_length() == 0) fail(text, "seq is missing");
  if (phase.steps() == 0) fail(text, "steps is missing");
  return phase;
}

}  // namespace jetchar::sweeps
