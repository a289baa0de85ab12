// Splits a serial byte stream into lines ending in LF (CR before it dropped). A line longer than
// the limit is discarded as garbage until the next LF, so a stream of noise cannot grow memory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/meters/meter_reading.h"

namespace jetchar::jetson::meters {

class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line = 256) : max_line_(max_line) {}

  void feed(std::string_view bytes, std::vector<std::string>& lines);
  void reset() {
    current_.clear();
    overflow_ = false;
  }
  ProtocolStats& stats() { return stats_; }
  const ProtocolStats& stats() const { return stats_; }

 private:
  std::size_t max_line_;
  std::string current_;
  bool overflow_ = false;
  ProtocolStats stats_;
};

}  // namespace jetchar::jetson::meters
