#include "experiments/training/out_of_memory.h"

#include <algorithm>
#include <cctype>
#include <new>
#include <string>

namespace jetchar::experiments {

bool is_out_of_memory(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return true;
  std::string message = error.what();
  std::transform(message.begin(), message.end(), message.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // Texts of c10's allocators across 1.x/2.x releases (CPU: "can't allocate memory" / "not enough
  // memory"; CUDA: "CUDA out of memory"; HIP/MPS likewise say "out of memory").
  for (const char* marker : {"out of memory", "can't allocate memory", "not enough memory", "cannot allocate memory"}) {
    if (message.find(marker) != std::string::npos) return true;
  }
  return false;
}

}  // namespace jetchar::experiments
