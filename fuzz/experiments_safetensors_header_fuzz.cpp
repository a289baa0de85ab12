// libFuzzer target for the safetensors header parser: any byte string is either a header whose
// tensors tile the file's data exactly (offsets agree with dtype and shape) or raises CheckpointError.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "experiments/checkpoints/checkpoint_error.h"
#include "experiments/checkpoints/safetensors_header.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::experiments;
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  try {
    const auto header = parse_safetensors_header(file, size, "fuzz.safetensors");
    check(header.data_start <= size);
    std::uint64_t covered = 0;
    for (const auto& tensor : header.tensors) {
      check(tensor.begin == covered && tensor.end >= tensor.begin);
      check(safetensors_dtype_bytes(tensor.dtype) == tensor.element_bytes && tensor.element_bytes > 0);
      std::uint64_t elements = 1;
      for (const auto dimension : tensor.shape) {
        check(dimension >= 0);
        elements *= static_cast<std::uint64_t>(dimension);
      }
      check(elements * tensor.element_bytes == tensor.end - tensor.begin);
      covered = tensor.end;
    }
    check(header.data_start + covered == size);
  } catch (const CheckpointError&) {
  }
  return 0;
}
