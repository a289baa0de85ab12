// The error every text reader throws for bad input (ill-formed UTF-8, malformed CoNLL lines,
// SQuAD offsets outside the context, a vocabulary without [UNK], ...). It derives from
// std::invalid_argument so that the CLI reports it as bad input (exit 3), and its message always
// names the file and the line, byte offset or question id.
#pragma once

#include <stdexcept>
#include <string>

namespace jetchar::loaders::text {

class TextFormatError : public std::invalid_argument {
 public:
  explicit TextFormatError(const std::string& message) : std::invalid_argument(message) {}
};

}  // namespace jetchar::loaders::text
