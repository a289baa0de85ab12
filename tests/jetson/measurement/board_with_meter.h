// A simulated AGX Orin with a simulated INA meter on a pseudo-terminal (jetson/meters/
// meter_simulator.h, 10 ms lines of the standard 3-9 W trace at 5 V), and the options of a
// measurement session on both: the setting of the measurement session's tests.
#pragma once

#include <chrono>

#include "jetson/measurement/measurement_session.h"
#include "jetson/meters/meter_simulator.h"
#include "jetson/meters/synthetic_power_trace.h"
#include "jetson/simulated/simulated_board.h"

namespace jetchar::jetson::measurement::testing {

inline meters::MeterSimulatorOptions ina_every_10ms() {
  meters::MeterSimulatorOptions options;
  options.interval = std::chrono::milliseconds(10);  // the ina protocol's nominal interval
  return options;
}

struct BoardWithMeter {
  meters::MeterSimulator meter{"ina", meters::SyntheticPowerTrace::standard(5000), ina_every_10ms()};
  SimulatedBoard board{"agx-orin-r36"};

  BoardWithMeter() { meter.start(); }

  /// Sampled at `rate_hz`; the board's power is modelled, so the meter is never correlated with it.
  MeasurementOptions options(double rate_hz) const {
    MeasurementOptions o;
    o.sample_rate_hz = rate_hz;
    o.meters.push_back(parse_meter_spec("ina:" + meter.device_path(), "--meter"));
    o.onboard_modelled = true;
    return o;
  }
};

}  // namespace jetchar::jetson::measurement::testing
