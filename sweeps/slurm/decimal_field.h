// A number field of Slurm's text (job and task ids, node indices in a host list): decimal digits
// only, 18 at most, so that every such number fits an unsigned 64-bit integer.
#pragma once

#include <algorithm>
#include <cctype>
#include <string_view>

namespace jetchar::sweeps {

inline bool is_decimal_field(std::string_view text) {
  return !text.empty() && text.size() <= 18 &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace jetchar::sweeps
