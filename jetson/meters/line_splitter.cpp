#include "jetson/meters/line_splitter.h"

namespace jetchar::jetson::meters {

void LineSplitter::feed(std::string_view bytes, std::vector<std::string>& lines) {
  for (char c : bytes) {
    if (c == '\n') {
      if (overflow_) {
        overflow_ = false;
      } else {
        if (!current_.empty() && current_.back() == '\r') current_.pop_back();
        lines.push_back(std::move(current_));
      }
      current_.clear();
      continue;
    }
    if (overflow_) {
      ++stats_.garbage_bytes;
      continue;
    }
    current_.push_back(c);
    if (current_.size() > max_line_) {
      stats_.garbage_bytes += current_.size();
      ++stats_.bad_frames;
      current_.clear();
      overflow_ = true;
    }
  }
}

}  // namespace jetchar::jetson::meters
