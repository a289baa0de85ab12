// `train --phase` texts (sweeps/phase_option.h): any text either parses to a phase with a sequence
// length and steps, whose text (results::phase_text) parses to the same phase, or throws std::invalid_argument starting
// "phase '"; nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <google/protobuf/util/message_differencer.h>

#include "results/setting_values.h"
#include "sweeps/phase_option.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sweeps;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto phase = parse_phase_option(text);
    if (phase.sequence_length() < 8 || phase.steps() < 1) std::abort();
    const auto again = parse_phase_option(jetchar::results::phase_text(phase));
    if (!google::protobuf::util::MessageDifferencer::Equals(phase, again)) std::abort();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind("phase '", 0) != 0) std::abort();
  }
  return 0;
}
