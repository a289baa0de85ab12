#include "jetson/meters/serial_meter_reader.h"

#include <fmt/format.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/serial_port.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "sysfs/monotonic_clock.h"

namespace jetchar::jetson::meters {
namespace {

namespace asio = boost::asio;

using sysfs::monotonic_ns;

}  // namespace

struct SerialMeterReader::Impl {
  Impl(std::unique_ptr<MeterProtocol> p, SerialReaderOptions o)
      : protocol(std::move(p)), options(std::move(o)), port(io), reconnect_timer(io), poll_timer(io), watchdog(io) {}

  // --- state shared with callers (guarded by mutex) ---
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  std::deque<MeterReading> pending;
  std::vector<MeterGap> gaps;
  SerialReaderStatus status;

  // --- reader-thread state ---
  std::unique_ptr<MeterProtocol> protocol;
  SerialReaderOptions options;
  asio::io_context io;
  asio::serial_port port;
  asio::steady_timer reconnect_timer;
  asio::steady_timer poll_timer;
  asio::steady_timer watchdog;
  std::thread thread;
  std::array<char, 4096> buffer{};
  std::deque<std::string> write_queue;
  std::chrono::milliseconds backoff{0};
  std::optional<std::int64_t> last_good_ns;  // host time of the last good reading
  std::int64_t last_data_ns = 0;             // host time of the last byte received
  std::string gap_reason;                    // why data stopped, until the next good reading
  std::uint64_t seen_bad = 0, seen_garbage = 0, seen_lost = 0;
  std::uint64_t sequence = 0;
  bool running = false;
  bool stopping = false;

  void note_gap(const std::string& reason) {
    if (gap_reason.find(reason) == std::string::npos) gap_reason += (gap_reason.empty() ? "" : "; ") + reason;
  }

  void update_status_locked() {
    status.protocol = protocol->stats();
    status.lost_records = protocol->lost_records();
  }

  void try_open() {
    if (stopping) return;
    boost::system::error_code ec;
    port.open(options.device.string(), ec);
    if (!ec) {
      // A pty ignores the line settings; a real adapter needs them. Failures here are not fatal.
      boost::system::error_code ignored;
      port.set_option(asio::serial_port_base::baud_rate(protocol->baud_rate()), ignored);
      port.set_option(asio::serial_port_base::character_size(8), ignored);
      port.set_option(asio::serial_port_base::parity(asio::serial_port_base::parity::none), ignored);
      port.set_option(asio::serial_port_base::stop_bits(asio::serial_port_base::stop_bits::one), ignored);
      port.set_option(asio::serial_port_base::flow_control(asio::serial_port_base::flow_control::none), ignored);
    }
    if (ec) {
      {
        std::lock_guard lock(mutex);
        ++status.failed_opens;
        status.last_open_errno = ec.value();
        status.last_error = fmt::format("cannot open {}: {}", options.device.string(), ec.message());
      }
      schedule_reconnect();
      return;
    }
    backoff = std::chrono::milliseconds(0);
    const std::int64_t now = monotonic_ns();
    last_data_ns = now;
    {
      std::lock_guard lock(mutex);
      status.connected = true;
      ++status.opens;
    }
    changed.notify_all();
    send(protocol->on_open(now));
    start_read();
    start_poll();
  }

  void schedule_reconnect() {
    if (stopping) return;
    backoff = backoff.count() == 0 ? options.backoff_initial : std::min(backoff * 2, options.backoff_max);
    reconnect_timer.expires_after(backoff);
    reconnect_timer.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) try_open();
    });
  }

  void disconnect(const std::string& why) {
    boost::system::error_code ignored;
    port.close(ignored);
    poll_timer.cancel();
    write_queue.clear();
    note_gap("disconnected: " + why);
    {
      std::lock_guard lock(mutex);
      status.connected = false;
      status.last_error = why;
    }
    changed.notify_all();
    schedule_reconnect();
  }

  void send(std::string bytes) {
    if (bytes.empty() || !port.is_open()) return;
    write_queue.push_back(std::move(bytes));
    if (write_queue.size() == 1) write_next();
  }

  void write_next() {
    if (write_queue.empty() || !port.is_open()) return;
    asio::async_write(port, asio::buffer(write_queue.front()),
                      [this](const boost::system::error_code& ec, std::size_t) {
                        if (ec) return;  // the read side notices a dead port and reconnects
                        if (!write_queue.empty()) write_queue.pop_front();
                        write_next();
                      });
  }

  void start_read() {
    port.async_read_some(asio::buffer(buffer), [this](const boost::system::error_code& ec, std::size_t n) {
      if (ec) {
        if (ec == asio::error::operation_aborted || stopping) return;
        disconnect(ec.message());
        return;
      }
      const std::int64_t now = monotonic_ns();
      last_data_ns = now;
      std::vector<MeterReading> readings;
      std::string reply;
      protocol->on_bytes(std::string_view(buffer.data(), n), now, readings, reply);
      const ProtocolStats stats = protocol->stats();
      if (stats.bad_frames != seen_bad || stats.garbage_bytes != seen_garbage) note_gap("bad frame or garbage");
      if (protocol->lost_records() != seen_lost) note_gap("records lost (sequence jump)");
      seen_bad = stats.bad_frames;
      seen_garbage = stats.garbage_bytes;
      seen_lost = protocol->lost_records();
      publish(readings, now);
      send(std::move(reply));
      start_read();
    });
  }

  void publish(std::vector<MeterReading>& readings, std::int64_t now) {
    {
      std::lock_guard lock(mutex);
      for (auto& reading : readings) {
        if (!gap_reason.empty() && last_good_ns) {
          gaps.push_back(MeterGap{*last_good_ns, reading.host_time_ns, gap_reason});
        }
        gap_reason.clear();
        if (reading.sequence == 0) reading.sequence = sequence;
        ++sequence;
        last_good_ns = reading.host_time_ns;
        pending.push_back(reading);
        ++status.readings;
        if (pending.size() > options.max_pending) {
          pending.pop_front();
          ++status.dropped;
        }
      }
      update_status_locked();
    }
    (void)now;
    if (!readings.empty()) changed.notify_all();
  }

  void start_poll() {
    const auto interval = protocol->poll_interval();
    if (!interval) return;
    poll_timer.expires_after(*interval);
    poll_timer.async_wait([this](const boost::system::error_code& ec) {
      if (ec || !port.is_open()) return;
      send(protocol->poll_request(monotonic_ns()));
      start_poll();
    });
  }

  void start_watchdog() {
    watchdog.expires_after(protocol->expected_interval());
    watchdog.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      const std::int64_t now = monotonic_ns();
      const auto limit = static_cast<std::int64_t>(options.silence_factor *
                                                   static_cast<double>(protocol->expected_interval().count()));
      if (port.is_open() && now - last_data_ns > limit) {
        note_gap(fmt::format("silent for more than {:.3f} s", static_cast<double>(limit) / 1e9));
      }
      start_watchdog();
    });
  }
};

SerialMeterReader::SerialMeterReader(std::unique_ptr<MeterProtocol> protocol, SerialReaderOptions options)
    : impl_(std::make_unique<Impl>(std::move(protocol), std::move(options))) {}

SerialMeterReader::~SerialMeterReader() { stop(); }

void SerialMeterReader::start() {
  if (impl_->running) return;
  impl_->running = true;
  impl_->stopping = false;
  asio::post(impl_->io, [impl = impl_.get()] {
    impl->try_open();
    impl->start_watchdog();
  });
  impl_->thread = std::thread([impl = impl_.get()] {
    auto guard = asio::make_work_guard(impl->io);
    impl->io.run();
  });
}

void SerialMeterReader::stop() {
  if (!impl_->running) return;
  asio::post(impl_->io, [impl = impl_.get()] {
    impl->stopping = true;
    boost::system::error_code ignored;
    impl->reconnect_timer.cancel();
    impl->poll_timer.cancel();
    impl->watchdog.cancel();
    impl->port.close(ignored);
  });
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->running = false;
  std::lock_guard lock(impl_->mutex);
  impl_->status.connected = false;
}

std::size_t SerialMeterReader::drain(std::vector<MeterReading>& out) {
  std::lock_guard lock(impl_->mutex);
  const std::size_t n = impl_->pending.size();
  out.insert(out.end(), impl_->pending.begin(), impl_->pending.end());
  impl_->pending.clear();
  return n;
}

std::vector<MeterGap> SerialMeterReader::gaps() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->gaps;
}

SerialReaderStatus SerialMeterReader::status() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->status;
}

const MeterProtocol& SerialMeterReader::protocol() const { return *impl_->protocol; }

bool SerialMeterReader::wait_for_readings(std::uint64_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->mutex);
  return impl_->changed.wait_for(lock, timeout, [&] { return impl_->status.readings >= count; });
}

bool SerialMeterReader::wait_for_opens(std::uint64_t opens, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->mutex);
  return impl_->changed.wait_for(lock, timeout, [&] { return impl_->status.opens >= opens; });
}

}  // namespace jetchar::jetson::meters
