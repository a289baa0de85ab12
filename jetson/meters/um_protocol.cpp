#include "jetson/meters/um_protocol.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace jetchar::jetson::meters {
namespace {

// Byte positions XORed into the UM34C's last byte (as libsigrok's rdtech-um driver checks it).
constexpr std::size_t kUm34cChecksumPositions[] = {1,  3,  7,  9,  15,  17,  19,  23,  31,  39, 41,
                                                   45, 49, 53, 55, 57,  59,  63,  67,  69,  73, 79,
                                                   83, 89, 97, 99, 109, 111, 113, 119, 121, 127};

std::uint16_t be16(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint16_t>((b[at] << 8) | b[at + 1]);
}
std::uint32_t be32(std::span<const std::uint8_t> b, std::size_t at) {
  return (static_cast<std::uint32_t>(b[at]) << 24) | (static_cast<std::uint32_t>(b[at + 1]) << 16) |
         (static_cast<std::uint32_t>(b[at + 2]) << 8) | b[at + 3];
}
void put16(std::array<std::uint8_t, kUmFrameSize>& b, std::size_t at, std::uint32_t v) {
  b[at] = static_cast<std::uint8_t>(v >> 8);
  b[at + 1] = static_cast<std::uint8_t>(v);
}
void put32(std::array<std::uint8_t, kUmFrameSize>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

std::uint8_t um34c_checksum(std::span<const std::uint8_t> frame) {
  std::uint8_t sum = 0;
  for (std::size_t at : kUm34cChecksumPositions) sum ^= frame[at];
  return sum;
}

bool trailer_ok(UmModel model, std::span<const std::uint8_t> frame) {
  if (model == UmModel::kUm34c) return um34c_checksum(frame) == frame[kUmFrameSize - 1];
  return be16(frame, kUmFrameSize - 2) == 0xFFF1;
}

// Volts per count and amps per count, per model.
double voltage_scale_mv(UmModel model) { return model == UmModel::kUm25c ? 1.0 : 10.0; }
double current_scale_ma(UmModel model) { return model == UmModel::kUm25c ? 0.1 : 1.0; }

std::uint32_t clamp_u(double value, double max) {
  return static_cast<std::uint32_t>(std::clamp(std::llround(value), 0LL, static_cast<long long>(max)));
}

}  // namespace

std::optional<UmModel> um_model_from_id(std::uint16_t id) {
  switch (id) {
    case 0x0963: return UmModel::kUm24c;
    case 0x09C9: return UmModel::kUm25c;
    case 0x0D4C: return UmModel::kUm34c;
    default: return std::nullopt;
  }
}

std::optional<UmModel> um_model_from_name(std::string_view name) {
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "um24c") return UmModel::kUm24c;
  if (lower == "um25c") return UmModel::kUm25c;
  if (lower == "um34c") return UmModel::kUm34c;
  return std::nullopt;
}

std::string_view um_model_name(UmModel model) {
  switch (model) {
    case UmModel::kUm24c: return "UM24C";
    case UmModel::kUm25c: return "UM25C";
    case UmModel::kUm34c: return "UM34C";
  }
  return "UM?";
}

std::optional<UmFrame> parse_um_frame(std::span<const std::uint8_t> frame) {
  if (frame.size() != kUmFrameSize) return std::nullopt;
  const auto model = um_model_from_id(be16(frame, 0));
  if (!model || !trailer_ok(*model, frame)) return std::nullopt;
  UmFrame result;
  result.model = *model;
  result.voltage_mv = be16(frame, 2) * voltage_scale_mv(*model);
  result.current_ma = be16(frame, 4) * current_scale_ma(*model);
  result.power_mw = static_cast<double>(be32(frame, 6));
  result.temperature_c = be16(frame, 10);
  result.selected_group = be16(frame, 14);
  result.load_resistance_ohm = be32(frame, 122) / 10.0;
  return result;
}

std::array<std::uint8_t, kUmFrameSize> encode_um_frame(const UmFrame& frame) {
  std::array<std::uint8_t, kUmFrameSize> b{};
  put16(b, 0, static_cast<std::uint16_t>(frame.model));
  put16(b, 2, clamp_u(frame.voltage_mv / voltage_scale_mv(frame.model), 65535));
  put16(b, 4, clamp_u(frame.current_ma / current_scale_ma(frame.model), 65535));
  put32(b, 6, clamp_u(frame.power_mw, 4294967295.0));
  put16(b, 10, clamp_u(frame.temperature_c, 65535));
  put16(b, 12, clamp_u(frame.temperature_c * 9.0 / 5.0 + 32.0, 65535));
  put16(b, 14, clamp_u(frame.selected_group, 9));
  put32(b, 122, clamp_u(frame.load_resistance_ohm * 10.0, 4294967295.0));
  if (frame.model == UmModel::kUm34c) {
    b[kUmFrameSize - 1] = um34c_checksum(b);
  } else {
    put16(b, kUmFrameSize - 2, 0xFFF1);
  }
  return b;
}

void UmFrameAssembler::feed(std::span<const std::uint8_t> bytes, std::vector<UmFrame>& frames) {
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  std::size_t start = 0;
  while (buffer_.size() - start >= 2) {
    if (!um_model_from_id(be16(buffer_, start))) {
      ++stats_.garbage_bytes;
      ++start;
      continue;
    }
    if (buffer_.size() - start < kUmFrameSize) break;  // wait for the rest
    const auto frame = parse_um_frame(std::span<const std::uint8_t>(buffer_).subspan(start, kUmFrameSize));
    if (frame) {
      frames.push_back(*frame);
      ++stats_.frames;
      start += kUmFrameSize;
    } else {
      // A model id by chance, or a corrupted frame: slide one byte and look again.
      ++stats_.bad_frames;
      ++stats_.garbage_bytes;
      ++start;
    }
  }
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(start));
}

}  // namespace jetchar::jetson::meters
