// The error every checkpoint reader throws for bad input: a safetensors header that does not
// follow the format, a config.json field of the wrong type, a tensor that is missing, unknown or
// of the wrong shape. It derives from std::invalid_argument so that the CLI reports it as bad
// input (exit 3); its message names the file and the tensor or field.
#pragma once

#include <stdexcept>
#include <string>

namespace jetchar::experiments {

class CheckpointError : public std::invalid_argument {
 public:
  explicit CheckpointError(const std::string& message) : std::invalid_argument(message) {}
};

}  // namespace jetchar::experiments
