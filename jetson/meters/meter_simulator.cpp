#include "jetson/meters/meter_simulator.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "jetson/meters/ina_line_protocol.h"
#include "jetson/meters/line_splitter.h"
#include "jetson/meters/um_protocol.h"
#include "jetson/meters/watts_up_protocol.h"
#include "jetson/meters/wt300_protocol.h"
#include "sysfs/monotonic_clock.h"
#include "sysfs/unique_fd.h"

namespace jetchar::jetson::meters {
namespace {

using sysfs::monotonic_ns;

enum class Kind { kWattsUp, kWt300, kUm, kIna };

struct Wt300Item {
  char function = 0;  // 'U', 'I', 'P', 'S'; 0 = none
};

}  // namespace

double typical_supply_mv(std::string_view protocol) {
  if (protocol == "wattsup") return 230000.0;       // mains
  if (protocol.rfind("um", 0) == 0) return 5000.0;  // USB
  return 19000.0;                                   // a Jetson barrel-jack supply
}

struct MeterSimulator::Impl {
  Impl(std::string p, SyntheticPowerTrace t, MeterSimulatorOptions o)
      : protocol(std::move(p)), trace(std::move(t)), options(std::move(o)) {
    if (protocol == "wattsup") kind = Kind::kWattsUp;
    else if (protocol == "wt300") kind = Kind::kWt300;
    else if (protocol == "ina") kind = Kind::kIna;
    else if (const auto model = um_model_from_name(protocol)) {
      kind = Kind::kUm;
      um_model = *model;
    } else {
      throw std::invalid_argument(fmt::format(
          "meter simulator: protocol '{}' is unknown; valid: wattsup, wt300, um24c, um25c, um34c, ina", protocol));
    }
    const auto ns = options.interval.count();
    switch (kind) {
      case Kind::kWattsUp: interval_ns = ns > 0 ? ns : 1'000'000'000; break;
      case Kind::kWt300: interval_ns = ns > 0 ? ns : 500'000'000; break;
      case Kind::kUm: interval_ns = 0; break;
      case Kind::kIna: interval_ns = ns > 0 ? ns : 10'000'000; break;
    }
    items = {{'U'}, {'I'}, {'P'}, {'S'}, {0}, {0}, {0}, {0}, {0}, {0}};
    open_pty();
  }

  ~Impl() { close_pty(); }

  std::string protocol;
  SyntheticPowerTrace trace;
  MeterSimulatorOptions options;
  Kind kind = Kind::kWattsUp;
  UmModel um_model = UmModel::kUm25c;
  std::int64_t interval_ns = 0;

  mutable std::mutex mutex;  // guards the fds, paths and protocol state below
  sysfs::UniqueFd master;    // the meter's side of the pseudo-terminal
  sysfs::UniqueFd slave;     // the simulator's own descriptor of the terminal readers open (slave_name)
  std::string slave_name;
  std::int64_t start = 0;
  std::thread thread;
  std::atomic<bool> running{false};
  std::atomic<bool> marker{false};
  std::atomic<std::uint64_t> request_count{0};

  // protocol state
  bool logging = false;           // Watts Up? external logging active
  std::int64_t next_emit_ns = 0;  // next push (Watts Up?, INA)
  std::uint64_t sequence = 0;
  LineSplitter lines{1024};
  WattsUpPacketSplitter packets;
  std::vector<Wt300Item> items;
  std::size_t item_count = 10;
  std::optional<std::int64_t> wait_until_update;  // :COMM:WAIT 1 pending: hold later commands
  std::vector<std::string> held_commands;
  std::vector<MeterSimulator::Served> served_log;  // guarded by mutex

  void open_pty() {
    termios raw{};
    ::cfmakeraw(&raw);
    char name[128] = {};
    int master_fd = -1;
    int slave_fd = -1;
    if (::openpty(&master_fd, &slave_fd, name, &raw, nullptr) != 0) {
      throw std::system_error(errno, std::generic_category(), "meter simulator: openpty");
    }
    master.reset(master_fd);
    slave.reset(slave_fd);
    ::fcntl(master.get(), F_SETFL, ::fcntl(master.get(), F_GETFL) | O_NONBLOCK);
    ::fcntl(master.get(), F_SETFD, FD_CLOEXEC);
    ::fcntl(slave.get(), F_SETFD, FD_CLOEXEC);
    slave_name = name;
    if (!options.link_path.empty()) {
      std::error_code ec;
      std::filesystem::remove(options.link_path, ec);
      std::filesystem::create_symlink(slave_name, options.link_path);
    }
  }

  void close_pty() {
    if (!options.link_path.empty()) {
      std::error_code ec;
      std::filesystem::remove(options.link_path, ec);
    }
    master.reset();
    slave.reset();
  }

  // Writes to the master; a full buffer (nobody reading) drops the rest, as a meter would.
  void write_locked(std::string_view bytes) {
    if (!master.valid() || bytes.empty()) return;
    if (options.fragment && bytes.size() > 8) {
      std::size_t at = 0;
      while (at < bytes.size()) {
        const std::size_t piece = std::min<std::size_t>(7, bytes.size() - at);
        if (::write(master.get(), bytes.data() + at, piece) < 0) return;
        at += piece;
        ::usleep(200);
      }
      return;
    }
    std::size_t at = 0;
    while (at < bytes.size()) {
      const ssize_t n = ::write(master.get(), bytes.data() + at, bytes.size() - at);
      if (n <= 0) return;
      at += static_cast<std::size_t>(n);
    }
  }

  std::int64_t trace_time(std::int64_t now) const { return now - start; }

  void on_connect_locked(std::int64_t now) {
    logging = false;
    wait_until_update.reset();
    held_commands.clear();
    lines.reset();
    packets.reset();
    next_emit_ns = now + interval_ns;
    if (kind == Kind::kWattsUp) write_locked("WattsUp.NET $ Version: 3.23 $ jetchar simulator 60Hz 120V\r\n");
    if (kind == Kind::kIna) write_locked("# jetchar INA226 logger simulator: seq,t_us,bus_mV,current_mA,marker\r\n");
  }

  // --- Watts Up? ---
  void handle_watts_up(std::string_view bytes, std::int64_t now) {
    std::vector<std::string> found;
    packets.feed(bytes, found);
    for (const auto& text : found) {
      request_count.fetch_add(1);
      const auto packet = parse_watts_up_packet(text);
      if (!packet) continue;
      if (packet->command == 'V' || (packet->command != 'H' && packet->command != 'L')) {
        write_locked("#v,-,8,1,1,2,0,3,23,0,0;\r\n");  // the reply to unknown commands as well
      } else if (packet->command == 'H') {
        write_locked("#h,-,18,W,V,A,WH,Cost,WH/Mo,Cost/Mo,Wmax,Vmax,Amax,Wmin,Vmin,Amin,PF,DC,PC,Hz,VA;\r\n");
      } else if (packet->command == 'L') {
        if (packet->args.size() == 3 && packet->args[0] == "E") {
          logging = true;
          if (options.interval.count() <= 0) {
            int seconds = 1;
            try {
              seconds = std::max(1, std::stoi(packet->args[2]));
            } catch (const std::exception&) {
            }
            interval_ns = static_cast<std::int64_t>(seconds) * 1'000'000'000;
          }
          next_emit_ns = now + interval_ns;
        } else if (packet->args.empty()) {
          logging = false;
        }
      }
    }
  }

  // --- Yokogawa ---
  std::int64_t update_ns() const { return interval_ns; }
  std::int64_t current_update_index(std::int64_t now) const { return trace_time(now) / update_ns(); }

  std::string wt300_values(std::int64_t now) const {
    const std::int64_t k = current_update_index(now);
    std::vector<std::optional<double>> values;
    for (std::size_t i = 0; i < item_count && i < items.size(); ++i) {
      if (k < 1 || items[i].function == 0) {
        values.push_back(std::nullopt);
        continue;
      }
      const std::int64_t a = (k - 1) * update_ns();
      const std::int64_t b = k * update_ns();
      const double p_w = trace.average_mw(a, b) / 1000.0;
      const double u_v = trace.voltage_mv() / 1000.0;
      switch (items[i].function) {
        case 'U': values.push_back(u_v); break;
        case 'I': values.push_back(p_w / u_v); break;
        case 'P':
        case 'S': values.push_back(p_w); break;  // S: a DC load's apparent power is its active power
        default: values.push_back(std::nullopt);
      }
    }
    return format_wt300_values(values) + "\r\n";
  }

  void execute_wt300(const std::string& line, std::int64_t now) {
    const auto command = parse_scpi_command(line);
    if (!command) return;
    const auto& m = command->mnemonics;
    const auto is = [&](std::size_t i, std::string_view long_form, bool suffix = false) {
      return i < m.size() && scpi_mnemonic_matches(m[i], long_form, suffix);
    };
    if (command->common) {
      if (m[0] == "IDN" && command->query) write_locked("YOKOGAWA,WT310E,C2SIM0001,F1.03\r\n");
      return;
    }
    if (is(0, "NUMeric") && is(1, "NORMal") && is(2, "VALue") && command->query) {
      write_locked(wt300_values(now));
      const std::int64_t k = current_update_index(now);
      bool has_power = false;
      for (std::size_t i = 0; i < item_count && i < items.size(); ++i)
        has_power = has_power || items[i].function == 'P';
      if (k >= 1 && has_power) {
        served_log.push_back({start + k * update_ns(), trace.average_mw((k - 1) * update_ns(), k * update_ns())});
      }
    } else if (is(0, "NUMeric") && is(1, "NORMal") && is(2, "NUMber") && !command->query) {
      try {
        item_count = std::clamp<std::size_t>(std::stoul(command->arguments), 1, items.size());
      } catch (const std::exception&) {
      }
    } else if (is(0, "NUMeric") && is(1, "NORMal") && is(2, "ITEM", true) && !command->query) {
      std::size_t digits_at = m[2].find_first_of("0123456789");
      const std::size_t index = digits_at == std::string::npos ? 0 : std::stoul(m[2].substr(digits_at));
      if (index >= 1 && index <= items.size() && !command->arguments.empty()) {
        const char f = static_cast<char>(std::toupper(static_cast<unsigned char>(command->arguments[0])));
        items[index - 1].function = (f == 'U' || f == 'I' || f == 'P' || f == 'S') ? f : '\0';
      }
    } else if (is(0, "SAMPle") && is(1, "RATE") && !command->query) {
      const auto rate = parse_wt300_number(command->arguments);
      if (rate && *rate && options.interval.count() <= 0) {
        for (double r : kWt300UpdateRatesS) {
          if (std::fabs(r - **rate) < 1e-9) interval_ns = static_cast<std::int64_t>(std::llround(r * 1e9));
        }
      }
    } else if (is(0, "STATus") && is(1, "EESR") && command->query) {
      write_locked("0\r\n");
    } else if (is(0, "COMMunicate") && is(1, "WAIT") && !command->query) {
      wait_until_update = (current_update_index(now) + 1) * update_ns() + start;
    }
    // :NUM:FORM, :STAT:FILT1, :SYST:COMM:COMM and others: accepted, nothing to do.
  }

  void handle_wt300(std::string_view bytes, std::int64_t now) {
    std::vector<std::string> received;
    lines.feed(bytes, received);
    for (auto& line : received) {
      if (line.empty()) continue;
      request_count.fetch_add(1);
      // A program message may chain commands with ';'.
      std::size_t start_at = 0;
      for (;;) {
        const std::size_t semi = line.find(';', start_at);
        std::string part = line.substr(start_at, semi == std::string::npos ? std::string::npos : semi - start_at);
        if (!part.empty()) held_commands.push_back(std::move(part));
        if (semi == std::string::npos) break;
        start_at = semi + 1;
      }
    }
    run_held_wt300(now);
  }

  void run_held_wt300(std::int64_t now) {
    std::size_t i = 0;
    for (; i < held_commands.size(); ++i) {
      if (wait_until_update && now < *wait_until_update) break;
      wait_until_update.reset();
      execute_wt300(held_commands[i], now);
    }
    held_commands.erase(held_commands.begin(), held_commands.begin() + static_cast<std::ptrdiff_t>(i));
  }

  // --- UM ---
  void handle_um(std::string_view bytes, std::int64_t now) {
    for (char c : bytes) {
      if (static_cast<std::uint8_t>(c) != kUmRequestDump) continue;  // other keys change the screen only
      request_count.fetch_add(1);
      const std::int64_t t = trace_time(now);
      UmFrame frame;
      frame.model = um_model;
      frame.voltage_mv = trace.voltage_mv();
      frame.power_mw = trace.power_mw(t);
      frame.current_ma = trace.current_ma(t);
      frame.temperature_c = 31;
      frame.load_resistance_ohm = frame.current_ma > 0 ? frame.voltage_mv / frame.current_ma : 9999.9;
      const auto bytes_out = encode_um_frame(frame);
      write_locked(std::string_view(reinterpret_cast<const char*>(bytes_out.data()), bytes_out.size()));
      served_log.push_back({now, frame.power_mw});
    }
  }

  void emit_due_locked(std::int64_t now) {
    if (kind == Kind::kWt300 && wait_until_update && now >= *wait_until_update) run_held_wt300(now);
    if (kind != Kind::kWattsUp && kind != Kind::kIna) return;
    if (kind == Kind::kWattsUp && !logging) return;
    while (now >= next_emit_ns) {
      const std::int64_t at = next_emit_ns;
      const std::int64_t t = trace_time(at);
      if (kind == Kind::kWattsUp) {
        const double p = trace.average_mw(t - interval_ns, t);
        write_locked(format_watts_up_record(p, trace.voltage_mv(), p / trace.voltage_mv() * 1000.0));
        served_log.push_back({at, p});
      } else {
        InaLine line;
        line.sequence = sequence++;
        line.device_time_us = static_cast<std::uint64_t>(std::max<std::int64_t>(0, t) / 1000);
        line.bus_mv = trace.voltage_mv();
        line.current_ma = trace.current_ma(t);
        line.marker = marker.load();
        write_locked(format_ina_line(line));
        served_log.push_back({at, trace.power_mw(t)});
      }
      next_emit_ns += interval_ns;
    }
  }

  void loop() {
    std::vector<char> buffer(4096);
    while (running.load()) {
      int fd;
      int timeout_ms = 5;
      {
        std::lock_guard lock(mutex);
        fd = master.get();
        const std::int64_t now = monotonic_ns();
        emit_due_locked(now);
        std::int64_t next = INT64_MAX;
        if ((kind == Kind::kWattsUp && logging) || kind == Kind::kIna) next = next_emit_ns;
        if (wait_until_update) next = std::min(next, *wait_until_update);
        if (next != INT64_MAX) {
          timeout_ms = static_cast<int>(std::clamp<std::int64_t>((next - now) / 1'000'000, 0, 5));
        }
      }
      if (fd < 0) {
        ::usleep(2000);
        continue;
      }
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, timeout_ms);
      if (ready <= 0 || !(p.revents & POLLIN)) continue;
      std::lock_guard lock(mutex);
      if (master.get() != fd) continue;  // reconnected meanwhile
      const ssize_t n = ::read(fd, buffer.data(), buffer.size());
      if (n <= 0) continue;
      const std::int64_t now = monotonic_ns();
      const std::string_view bytes(buffer.data(), static_cast<std::size_t>(n));
      switch (kind) {
        case Kind::kWattsUp: handle_watts_up(bytes, now); break;
        case Kind::kWt300: handle_wt300(bytes, now); break;
        case Kind::kUm: handle_um(bytes, now); break;
        case Kind::kIna: break;  // the logger ignores input
      }
    }
  }
};

MeterSimulator::MeterSimulator(std::string protocol, SyntheticPowerTrace trace, MeterSimulatorOptions options)
    : impl_(std::make_unique<Impl>(std::move(protocol), std::move(trace), std::move(options))) {}

MeterSimulator::~MeterSimulator() { stop(); }

void MeterSimulator::start() {
  if (impl_->running.exchange(true)) return;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->start = monotonic_ns();
    impl_->on_connect_locked(impl_->start);
  }
  impl_->thread = std::thread([impl = impl_.get()] { impl->loop(); });
}

void MeterSimulator::stop() {
  if (!impl_->running.exchange(false)) return;
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string MeterSimulator::device_path() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->options.link_path.empty() ? impl_->slave_name : impl_->options.link_path.string();
}

std::string MeterSimulator::slave_path() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->slave_name;
}

std::int64_t MeterSimulator::start_ns() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->start;
}

const SyntheticPowerTrace& MeterSimulator::trace() const { return impl_->trace; }

void MeterSimulator::inject(std::string_view bytes) {
  std::lock_guard lock(impl_->mutex);
  impl_->write_locked(bytes);
}

void MeterSimulator::disconnect() {
  std::lock_guard lock(impl_->mutex);
  impl_->close_pty();
}

void MeterSimulator::reconnect() {
  std::lock_guard lock(impl_->mutex);
  impl_->close_pty();
  impl_->open_pty();
  impl_->on_connect_locked(monotonic_ns());
}

void MeterSimulator::set_marker(bool level) { impl_->marker.store(level); }

std::uint64_t MeterSimulator::requests() const { return impl_->request_count.load(); }

std::vector<MeterSimulator::Served> MeterSimulator::served() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->served_log;
}

}  // namespace jetchar::jetson::meters
