// A known power signal for meter simulators and the simulated board: piecewise linear between
// breakpoints, repeating with the period of its last breakpoint, at a fixed supply voltage. Its
// energy over any interval is computed exactly, which is what tests compare readers against.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace jetchar::jetson::meters {

class SyntheticPowerTrace {
 public:
  struct Point {
    std::int64_t t_ns;
    double power_mw;
  };

  /// Breakpoints must start at t=0 and increase strictly; at least two. Throws std::invalid_argument.
  SyntheticPowerTrace(std::vector<Point> points, double voltage_mv);

  /// 4 s period: idle 3 W, a ramp to a 9 W burst, a step down to 5 W, a slow ramp, back to idle.
  static SyntheticPowerTrace standard(double voltage_mv);
  /// Reads breakpoints "t_s,power_mw" per line ('#' comments, blank lines and a first line
  /// "t_s,power_mw" as header allowed). Errors name the file, line and what is expected
  /// (std::invalid_argument).
  static SyntheticPowerTrace from_csv(const std::filesystem::path& file, double voltage_mv);

  double power_mw(std::int64_t t_ns) const;
  double voltage_mv() const { return voltage_mv_; }
  double current_ma(std::int64_t t_ns) const { return power_mw(t_ns) / voltage_mv_ * 1000.0; }
  /// Exact ∫P dt over [a_ns, b_ns] in mJ (a may be > b: negative).
  double energy_mj(std::int64_t a_ns, std::int64_t b_ns) const;
  /// Mean power over [a_ns, b_ns].
  double average_mw(std::int64_t a_ns, std::int64_t b_ns) const;
  std::int64_t period_ns() const { return points_.back().t_ns; }
  const std::vector<Point>& points() const { return points_; }

 private:
  double cumulative_mj(std::int64_t t_ns) const;  // ∫ from 0 to t (t may be negative)

  std::vector<Point> points_;
  std::vector<double> prefix_mj_;  // energy from 0 to points_[i].t_ns
  double voltage_mv_;
};

}  // namespace jetchar::jetson::meters
