#include "jetson/meters/meter_protocol.h"

#include <fmt/format.h>

#include <cmath>
#include <deque>
#include <stdexcept>

#include "jetson/meters/ina_line_protocol.h"
#include "jetson/meters/line_splitter.h"
#include "jetson/meters/um_protocol.h"
#include "jetson/meters/watts_up_protocol.h"
#include "jetson/meters/wt300_protocol.h"

namespace jetchar::jetson::meters {
namespace {

using std::chrono::nanoseconds;

std::string valid_names() {
  std::string names;
  for (const char* name : kMeterProtocolNames) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

class WattsUpProtocol final : public MeterProtocol {
 public:
  explicit WattsUpProtocol(nanoseconds interval)
      : interval_(interval.count() > 0 ? interval : std::chrono::seconds(1)) {}
  std::string_view name() const override { return "wattsup"; }
  unsigned baud_rate() const override { return 115200; }
  nanoseconds expected_interval() const override { return interval_; }
  bool reports_averages() const override { return true; }

  std::string on_open(std::int64_t) override {
    splitter_.reset();
    // The meter logs in whole seconds; a sub-second interval only makes sense with the simulator.
    const auto seconds = std::max<long long>(1, std::llround(std::chrono::duration<double>(interval_).count()));
    return watts_up_start_logging_command(static_cast<int>(seconds));
  }

  void on_bytes(std::string_view bytes, std::int64_t now_ns, std::vector<MeterReading>& readings,
                std::string&) override {
    packets_.clear();
    splitter_.feed(bytes, packets_);
    for (const auto& text : packets_) {
      const auto packet = parse_watts_up_packet(text);
      if (!packet) {
        ++splitter_.stats().bad_frames;
        continue;
      }
      if (packet->command != 'd') continue;  // version, header and other replies carry no data
      const auto record = decode_watts_up_record(*packet);
      if (!record) {
        ++splitter_.stats().bad_frames;
        continue;
      }
      ++splitter_.stats().frames;
      MeterReading reading;
      reading.host_time_ns = now_ns;
      reading.power_mw = record->power_mw;
      reading.voltage_mv = record->voltage_mv;
      reading.current_ma = record->current_ma;
      reading.is_average = true;
      readings.push_back(reading);
    }
  }
  ProtocolStats stats() const override { return splitter_.stats(); }

 private:
  nanoseconds interval_;
  WattsUpPacketSplitter splitter_;
  std::vector<std::string> packets_;
};

class Wt300Protocol final : public MeterProtocol {
 public:
  explicit Wt300Protocol(nanoseconds interval) {
    const double rate_s = interval.count() > 0 ? std::chrono::duration<double>(interval).count() : 0.5;
    bool valid = false;
    for (double r : kWt300UpdateRatesS) valid = valid || std::fabs(r - rate_s) < 1e-9;
    if (!valid) {
      throw std::invalid_argument(fmt::format(
          "wt300: update rate {} s is not one the meter supports; valid: 0.1, 0.25, 0.5, 1, 2, 5 s", rate_s));
    }
    rate_s_ = rate_s;
  }
  std::string_view name() const override { return "wt300"; }
  unsigned baud_rate() const override { return 9600; }
  nanoseconds expected_interval() const override { return nanoseconds(static_cast<std::int64_t>(rate_s_ * 1e9)); }
  bool reports_averages() const override { return true; }

  std::string on_open(std::int64_t now_ns) override {
    lines_.reset();
    pending_.clear();
    // Element 1 voltage, current, active power; ASCII numbers; then wait for each fresh update
    // (EESR UPD bit falling edge) before reading, so a reading is exactly one update period.
    std::string setup = fmt::format(
        "*IDN?\r\n:NUM:FORM ASCII\r\n:NUM:NORM:NUM 3\r\n:NUM:NORM:ITEM1 U,1\r\n:NUM:NORM:ITEM2 I,1\r\n"
        ":NUM:NORM:ITEM3 P,1\r\n:SAMP:RATE {}\r\n:STAT:FILT1 FALL\r\n",
        rate_s_);
    pending_.push_back(Reply::kIdentity);
    return setup + request(now_ns);
  }

  std::optional<nanoseconds> poll_interval() const override { return expected_interval() * 2; }

  // Retry when a request got no answer (a lost line, a meter that was switched off and on).
  std::string poll_request(std::int64_t now_ns) override {
    if (!pending_.empty() && now_ns - last_request_ns_ < 3 * expected_interval().count()) return {};
    pending_.clear();
    return request(now_ns);
  }

  void on_bytes(std::string_view bytes, std::int64_t now_ns, std::vector<MeterReading>& readings,
                std::string& reply) override {
    received_.clear();
    lines_.feed(bytes, received_);
    for (const auto& line : received_) {
      if (line.empty()) continue;
      if (pending_.empty()) {
        ++lines_.stats().bad_frames;  // an answer to nothing we asked
        continue;
      }
      const Reply expected = pending_.front();
      pending_.pop_front();
      switch (expected) {
        case Reply::kIdentity:
          if (line.rfind("YOKOGAWA", 0) != 0) ++lines_.stats().bad_frames;
          break;
        case Reply::kEventRegister:
          if (!parse_wt300_number(line)) ++lines_.stats().bad_frames;
          break;
        case Reply::kValues: {
          const auto values = parse_wt300_values(line, 3);
          if (!values) {
            ++lines_.stats().bad_frames;
          } else {
            ++lines_.stats().frames;
            MeterReading reading;
            reading.host_time_ns = now_ns;
            if ((*values)[0]) reading.voltage_mv = *(*values)[0] * 1000.0;
            if ((*values)[1]) reading.current_ma = *(*values)[1] * 1000.0;
            if ((*values)[2]) reading.power_mw = *(*values)[2] * 1000.0;
            reading.is_average = true;
            readings.push_back(reading);
          }
          reply += request(now_ns);
          break;
        }
      }
    }
  }
  ProtocolStats stats() const override { return lines_.stats(); }

 private:
  enum class Reply { kIdentity, kEventRegister, kValues };

  std::string request(std::int64_t now_ns) {
    last_request_ns_ = now_ns;
    pending_.push_back(Reply::kEventRegister);
    pending_.push_back(Reply::kValues);
    return ":STAT:EESR?\r\n:COMM:WAIT 1\r\n:NUM:NORM:VAL?\r\n";
  }

  double rate_s_ = 0.5;
  LineSplitter lines_;
  std::vector<std::string> received_;
  std::deque<Reply> pending_;
  std::int64_t last_request_ns_ = 0;
};

class UmProtocol final : public MeterProtocol {
 public:
  UmProtocol(UmModel model, nanoseconds interval)
      : model_(model), interval_(interval.count() > 0 ? interval : std::chrono::milliseconds(100)) {}
  std::string_view name() const override {
    return model_ == UmModel::kUm24c ? "um24c" : model_ == UmModel::kUm25c ? "um25c" : "um34c";
  }
  unsigned baud_rate() const override { return 9600; }
  nanoseconds expected_interval() const override { return interval_; }
  bool reports_averages() const override { return false; }
  std::string on_open(std::int64_t) override {
    assembler_.reset();
    return {};
  }
  std::optional<nanoseconds> poll_interval() const override { return interval_; }
  std::string poll_request(std::int64_t) override { return std::string(1, static_cast<char>(kUmRequestDump)); }
  void on_bytes(std::string_view bytes, std::int64_t now_ns, std::vector<MeterReading>& readings,
                std::string&) override {
    frames_.clear();
    assembler_.feed(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), frames_);
    for (const auto& frame : frames_) {
      if (frame.model != model_) {
        // The scaling differs by model: refuse to guess.
        ++assembler_.stats().bad_frames;
        continue;
      }
      MeterReading reading;
      reading.host_time_ns = now_ns;
      reading.voltage_mv = frame.voltage_mv;
      reading.current_ma = frame.current_ma;
      reading.power_mw = frame.power_mw;
      readings.push_back(reading);
    }
  }
  ProtocolStats stats() const override { return assembler_.stats(); }

 private:
  UmModel model_;
  nanoseconds interval_;
  UmFrameAssembler assembler_;
  std::vector<UmFrame> frames_;
};

class InaLineProtocol final : public MeterProtocol {
 public:
  explicit InaLineProtocol(nanoseconds interval)
      : interval_(interval.count() > 0 ? interval : std::chrono::milliseconds(10)) {}
  std::string_view name() const override { return "ina"; }
  unsigned baud_rate() const override { return 115200; }
  nanoseconds expected_interval() const override { return interval_; }
  bool reports_averages() const override { return false; }
  std::string on_open(std::int64_t) override {
    lines_.reset();
    // A logger that restarted begins a new sequence; do not count that as lost lines.
    last_sequence_.reset();
    return {};
  }
  void on_bytes(std::string_view bytes, std::int64_t now_ns, std::vector<MeterReading>& readings,
                std::string&) override {
    received_.clear();
    lines_.feed(bytes, received_);
    for (const auto& text : received_) {
      if (text.empty() || is_ina_comment(text)) continue;
      const auto line = parse_ina_line(text);
      if (!line) {
        ++lines_.stats().bad_frames;
        continue;
      }
      ++lines_.stats().frames;
      if (last_sequence_ && line->sequence > *last_sequence_ + 1) lost_ += line->sequence - *last_sequence_ - 1;
      last_sequence_ = line->sequence;
      MeterReading reading;
      reading.host_time_ns = now_ns;
      reading.voltage_mv = line->bus_mv;
      reading.current_ma = line->current_ma;
      reading.power_mw = line->power_mw();
      reading.sequence = line->sequence;
      reading.device_time_us = static_cast<std::int64_t>(line->device_time_us);
      reading.marker = line->marker;
      readings.push_back(reading);
    }
  }
  ProtocolStats stats() const override { return lines_.stats(); }
  std::uint64_t lost_records() const override { return lost_; }

 private:
  nanoseconds interval_;
  LineSplitter lines_;
  std::vector<std::string> received_;
  std::optional<std::uint64_t> last_sequence_;
  std::uint64_t lost_ = 0;
};

}  // namespace

std::unique_ptr<MeterProtocol> make_meter_protocol(std::string_view name, const MeterOptions& options) {
  if (options.interval.count() < 0) {
    throw std::invalid_argument(fmt::format("meter interval {} ns is negative", options.interval.count()));
  }
  if (name == "wattsup") return std::make_unique<WattsUpProtocol>(options.interval);
  if (name == "wt300") return std::make_unique<Wt300Protocol>(options.interval);
  if (const auto model = um_model_from_name(name)) return std::make_unique<UmProtocol>(*model, options.interval);
  if (name == "ina") return std::make_unique<InaLineProtocol>(options.interval);
  throw std::invalid_argument(fmt::format("meter protocol '{}' is unknown; valid: {}", name, valid_names()));
}

}  // namespace jetchar::jetson::meters
