#include "jetson/telemetry/gpio_marker.h"

#include <gtest/gtest.h>

#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

TEST(GpioMarker, ToggleRecordsEdgesWithMonotonicTimes) {
  FakePhaseMarker marker;
  EXPECT_FALSE(marker.level());
  const auto first = marker.toggle("+run");
  EXPECT_TRUE(first.level);
  EXPECT_TRUE(marker.level());
  marker.toggle("-run");
  ASSERT_EQ(marker.toggles().size(), 2u);
  EXPECT_FALSE(marker.toggles()[1].level);
  EXPECT_LE(marker.toggles()[0].time_ns, marker.toggles()[1].time_ns);
  EXPECT_EQ(marker.edge_times_ns().size(), 2u);
}

TEST(GpioMarker, FailedDrivesAreRecordedAndKeepTheLevel) {
  FakePhaseMarker marker;
  marker.set_failing(true);
  const auto t = marker.toggle("+epoch");
  EXPECT_FALSE(t.ok);
  EXPECT_FALSE(marker.level());
  EXPECT_TRUE(marker.edge_times_ns().empty());
}

TEST(GpioMarker, WindowObserverTogglesOnlyTheChosenKinds) {
  FakePhaseMarker marker;
  energy::WindowRecorder recorder;
  recorder.add_observer(marker_observer(marker, {energy::WindowKind::kRun, energy::WindowKind::kEpoch}));
  recorder.begin("run", energy::WindowKind::kRun, 0);
  recorder.begin("epoch", energy::WindowKind::kEpoch, 10);
  recorder.begin("mb", energy::WindowKind::kMinibatchWindow, 20);
  recorder.end("mb", 30);
  recorder.end("epoch", 40);
  recorder.end("run", 50);
  ASSERT_EQ(marker.toggles().size(), 4u);
  EXPECT_EQ(marker.toggles()[0].label, "+run");
  EXPECT_EQ(marker.toggles()[1].label, "+epoch");
  EXPECT_EQ(marker.toggles()[2].label, "-epoch");
  EXPECT_EQ(marker.toggles()[3].label, "-run");
  EXPECT_FALSE(marker.level());
}

TEST(GpioMarker, RealBackendReportsAMissingOrBogusChipByPath) {
  testing::TempDir dir;
  dir.write("dev/gpiochip1", "not a character device");
  const sysfs::Root root(dir.path());
  EXPECT_FALSE(gpio_chip_present(root, "gpiochip0"));
  EXPECT_TRUE(gpio_chip_present(root, "/dev/gpiochip1"));
  try {
    GpiodPhaseMarker marker(root, "gpiochip0", 3);
    FAIL() << "opened a missing chip";
  } catch (const sysfs::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/gpiochip0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(GpiodPhaseMarker(root, "gpiochip1", 3), sysfs::IoError);
}

TEST(GpioMarker, RealLineOnThisMachine) {
  const sysfs::Root root("/");
  if (!gpio_chip_present(root, "gpiochip0")) GTEST_SKIP() << "no /dev/gpiochip0 on this machine";
  const char* line = std::getenv("JETCHAR_TEST_GPIO_LINE");
  if (line == nullptr) GTEST_SKIP() << "set JETCHAR_TEST_GPIO_LINE to a free line of gpiochip0 to drive it";
  GpiodPhaseMarker marker(root, "gpiochip0", static_cast<unsigned>(std::stoul(line)));
  EXPECT_TRUE(marker.toggle("+test").ok);
  EXPECT_TRUE(marker.toggle("-test").ok);
}

}  // namespace
}  // namespace jetchar::jetson
