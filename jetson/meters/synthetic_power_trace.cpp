#include "jetson/meters/synthetic_power_trace.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace jetchar::jetson::meters {

SyntheticPowerTrace::SyntheticPowerTrace(std::vector<Point> points, double voltage_mv)
    : points_(std::move(points)), voltage_mv_(voltage_mv) {
  if (points_.size() < 2) {
    throw std::invalid_argument(fmt::format("power trace has {} breakpoints; need at least two", points_.size()));
  }
  if (points_.front().t_ns != 0) {
    throw std::invalid_argument(
        fmt::format("power trace starts at {} ns; the first breakpoint must be at 0", points_.front().t_ns));
  }
  if (!(voltage_mv > 0))
    throw std::invalid_argument(fmt::format("power trace voltage {} mV must be positive", voltage_mv));
  prefix_mj_.push_back(0.0);
  for (std::size_t i = 1; i < points_.size(); ++i) {
    if (points_[i].t_ns <= points_[i - 1].t_ns) {
      throw std::invalid_argument(
          fmt::format("power trace breakpoint {} at {} ns is not after the previous one", i, points_[i].t_ns));
    }
    if (points_[i].power_mw < 0 || points_[i - 1].power_mw < 0) {
      throw std::invalid_argument("power trace has a negative power value");
    }
    const double dt_s = static_cast<double>(points_[i].t_ns - points_[i - 1].t_ns) / 1e9;
    prefix_mj_.push_back(prefix_mj_.back() + 0.5 * (points_[i].power_mw + points_[i - 1].power_mw) * dt_s);
  }
}

SyntheticPowerTrace SyntheticPowerTrace::standard(double voltage_mv) {
  constexpr std::int64_t kMs = 1'000'000;
  return SyntheticPowerTrace({{0, 3000},
                              {800 * kMs, 3000},
                              {1000 * kMs, 9000},
                              {2000 * kMs, 9000},
                              {2001 * kMs, 5000},
                              {3000 * kMs, 6000},
                              {3800 * kMs, 3000},
                              {4000 * kMs, 3000}},
                             voltage_mv);
}

SyntheticPowerTrace SyntheticPowerTrace::from_csv(const std::filesystem::path& file, double voltage_mv) {
  std::ifstream in(file);
  if (!in) throw std::invalid_argument(fmt::format("power trace file {} cannot be opened", file.string()));
  std::vector<Point> points;
  std::string line;
  int number = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    // The first line may be the header the help names; a header naming other columns or units
    // (power_w) would be read as the wrong numbers, so it is refused for what it is.
    if (std::exchange(first, false) && line.find_first_not_of("0123456789+-.eE, \t") != std::string::npos) {
      if (line == "t_s,power_mw") continue;
      throw std::invalid_argument(fmt::format(
          "{}:{}: header '{}' names other columns; a trace's columns are 't_s,power_mw' (seconds, milliwatts)",
          file.string(), number, line));
    }
    const auto comma = line.find(',');
    double t_s = 0, p = 0;
    bool ok = comma != std::string::npos;
    if (ok) {
      const auto r1 = std::from_chars(line.data(), line.data() + comma, t_s);
      const auto r2 = std::from_chars(line.data() + comma + 1, line.data() + line.size(), p);
      ok = r1.ec == std::errc() && r1.ptr == line.data() + comma && r2.ec == std::errc() &&
           r2.ptr == line.data() + line.size() && std::isfinite(t_s) && std::isfinite(p);
    }
    if (!ok) {
      throw std::invalid_argument(fmt::format(
          "{}:{}: '{}' is not a breakpoint: expected two finite decimal numbers, seconds,milliwatts (e.g. 0.5,3000)",
          file.string(), number, line));
    }
    points.push_back(Point{static_cast<std::int64_t>(std::llround(t_s * 1e9)), p});
  }
  try {
    return SyntheticPowerTrace(std::move(points), voltage_mv);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", file.string(), e.what()));
  }
}

double SyntheticPowerTrace::power_mw(std::int64_t t_ns) const {
  const std::int64_t period = period_ns();
  std::int64_t t = t_ns % period;
  if (t < 0) t += period;
  for (std::size_t i = 1; i < points_.size(); ++i) {
    if (t <= points_[i].t_ns) {
      const auto& a = points_[i - 1];
      const auto& b = points_[i];
      return a.power_mw +
             (b.power_mw - a.power_mw) * static_cast<double>(t - a.t_ns) / static_cast<double>(b.t_ns - a.t_ns);
    }
  }
  return points_.back().power_mw;
}

double SyntheticPowerTrace::cumulative_mj(std::int64_t t_ns) const {
  const std::int64_t period = period_ns();
  std::int64_t cycles = t_ns / period;
  std::int64_t t = t_ns % period;
  if (t < 0) {
    t += period;
    --cycles;
  }
  double within = 0.0;
  for (std::size_t i = 1; i < points_.size(); ++i) {
    if (t <= points_[i].t_ns) {
      const auto& a = points_[i - 1];
      const double pt = power_mw(t);
      within = prefix_mj_[i - 1] + 0.5 * (a.power_mw + pt) * static_cast<double>(t - a.t_ns) / 1e9;
      break;
    }
  }
  return static_cast<double>(cycles) * prefix_mj_.back() + within;
}

double SyntheticPowerTrace::energy_mj(std::int64_t a_ns, std::int64_t b_ns) const {
  return cumulative_mj(b_ns) - cumulative_mj(a_ns);
}

double SyntheticPowerTrace::average_mw(std::int64_t a_ns, std::int64_t b_ns) const {
  if (b_ns == a_ns) return power_mw(a_ns);
  return energy_mj(a_ns, b_ns) * 1e9 / static_cast<double>(b_ns - a_ns);
}

}  // namespace jetchar::jetson::meters
