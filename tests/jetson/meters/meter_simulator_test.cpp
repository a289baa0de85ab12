#include "jetson/meters/meter_simulator.h"

#include <gtest/gtest.h>

namespace jetchar::jetson::meters {
namespace {

TEST(MeterSimulator, ASimulatedMeterSitsOnTheSupplyItsKindMeasures) {
  EXPECT_DOUBLE_EQ(typical_supply_mv("wattsup"), 230000.0);  // a mains meter
  for (const char* usb : {"um24c", "um25c", "um34c"}) EXPECT_DOUBLE_EQ(typical_supply_mv(usb), 5000.0) << usb;
  EXPECT_DOUBLE_EQ(typical_supply_mv("wt300"), 19000.0);  // in line with a Jetson's supply
  EXPECT_DOUBLE_EQ(typical_supply_mv("ina"), 19000.0);
}

}  // namespace
}  // namespace jetchar::jetson::meters
