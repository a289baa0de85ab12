// RDTech UM24C / UM25C / UM34C USB meters over Bluetooth SPP (or serial pads): the host sends the
// request byte 0xF0 and the meter answers one 130-byte big-endian frame. Offset 0 is the model id
// (0x0963 UM24C, 0x09C9 UM25C, 0x0D4C UM34C); voltage/current scaling differs by model (UM25C:
// V/1000, A/10000; UM24C/UM34C: V/100, A/1000); power is u32 mW on all. The frame ends with 0xFFF1
// (UM24C/UM25C) or, on the UM34C, an XOR over 32 fixed byte positions in the last byte.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/meters/meter_reading.h"

namespace jetchar::jetson::meters {

inline constexpr std::size_t kUmFrameSize = 130;
inline constexpr std::uint8_t kUmRequestDump = 0xF0;

enum class UmModel : std::uint16_t { kUm24c = 0x0963, kUm25c = 0x09C9, kUm34c = 0x0D4C };

std::optional<UmModel> um_model_from_id(std::uint16_t id);
std::optional<UmModel> um_model_from_name(std::string_view name);  ///< "um24c", "UM25C", ...
std::string_view um_model_name(UmModel model);

struct UmFrame {
  UmModel model = UmModel::kUm25c;
  double voltage_mv = 0;
  double current_ma = 0;
  double power_mw = 0;
  int temperature_c = 0;
  int selected_group = 0;
  double load_resistance_ohm = 0;
};

/// Decodes a complete frame; nullopt when the size, model id or trailer/checksum is wrong.
std::optional<UmFrame> parse_um_frame(std::span<const std::uint8_t> frame);

/// Encodes a frame as the meter would (the simulator's side), with the model's trailer.
std::array<std::uint8_t, kUmFrameSize> encode_um_frame(const UmFrame& frame);

/// Reassembles frames from a byte stream that may split them arbitrarily or carry noise: it
/// slides byte by byte until a known model id starts a frame whose trailer validates.
class UmFrameAssembler {
 public:
  void feed(std::span<const std::uint8_t> bytes, std::vector<UmFrame>& frames);
  void reset() { buffer_.clear(); }
  ProtocolStats& stats() { return stats_; }
  const ProtocolStats& stats() const { return stats_; }

 private:
  std::vector<std::uint8_t> buffer_;
  ProtocolStats stats_;
};

}  // namespace jetchar::jetson::meters
