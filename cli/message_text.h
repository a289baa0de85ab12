// An error line as the terminal shows it: a message that quotes a huge value (a 1 MB model name
// in a spec) is cut, so that one line stays one line and names how much it left out.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace jetchar::cli {

inline constexpr std::size_t kMaxMessageBytes = 1500;

inline std::string cut_for_terminal(std::string_view message) {
  if (message.size() <= kMaxMessageBytes) return std::string(message);
  return fmt::format("{} ... ({} more bytes left out)", message.substr(0, kMaxMessageBytes),
                     message.size() - kMaxMessageBytes);
}

}  // namespace jetchar::cli
