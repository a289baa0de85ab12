#include "jetson/energy/measurement_windows.h"

#include <gtest/gtest.h>

namespace jetchar::jetson::energy {
namespace {

TEST(MeasurementWindows, NestedWindowsRecordParentAndDepth) {
  WindowRecorder recorder;
  std::vector<std::string> events;
  recorder.add_observer([&](const WindowEvent& e) {
    events.push_back((e.edge == WindowEvent::Edge::kBegin ? "+" : "-") + e.window.name);
  });
  recorder.begin("run", WindowKind::kRun, 10);
  recorder.begin("epoch", WindowKind::kEpoch, 20);
  recorder.begin("mb", WindowKind::kMinibatchWindow, 30);
  recorder.end("mb", 40, 10, 160);
  recorder.end("epoch", 50);
  recorder.begin("epoch", WindowKind::kEpoch, 60);  // the name may be reused once closed
  recorder.end("epoch", 70);
  recorder.end("run", 80);
  const auto& w = recorder.windows();
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[1].parent, 0u);
  EXPECT_EQ(w[2].parent, 1u);
  EXPECT_EQ(w[2].depth, 2);
  EXPECT_EQ(*w[2].duration_ns(), 10);
  EXPECT_EQ(*w[2].minibatches, 10u);
  EXPECT_EQ(w[3].parent, 0u);
  EXPECT_EQ(recorder.closed("epoch").size(), 2u);
  EXPECT_EQ(events, (std::vector<std::string>{"+run", "+epoch", "+mb", "-mb", "-epoch", "+epoch", "-epoch", "-run"}));
}

TEST(MeasurementWindows, OverlappingWindowsMayEndInAnyOrder) {
  WindowRecorder recorder;
  recorder.begin("a", WindowKind::kOther, 0);
  recorder.begin("b", WindowKind::kOther, 1);
  recorder.end("a", 2);
  EXPECT_TRUE(recorder.is_open("b"));
  recorder.end("b", 3);
  EXPECT_FALSE(recorder.is_open("b"));
}

TEST(MeasurementWindows, RejectsDuplicatesUnknownNamesAndTimeTravel) {
  WindowRecorder recorder;
  recorder.begin("run", WindowKind::kRun, 100);
  EXPECT_THROW(recorder.begin("run", WindowKind::kRun, 200), std::invalid_argument);
  EXPECT_THROW(recorder.end("epoch", 200), std::invalid_argument);
  EXPECT_THROW(recorder.begin("epoch", WindowKind::kEpoch, 50), std::invalid_argument);
  EXPECT_THROW(recorder.begin("", WindowKind::kEpoch, 150), std::invalid_argument);
  try {
    recorder.end("nope", 300);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("open windows: run"), std::string::npos) << e.what();
  }
}

TEST(MeasurementWindows, DefaultTimesComeFromTheMonotonicClock) {
  WindowRecorder recorder;
  const auto before = WindowRecorder::now_ns();
  recorder.begin("w");
  const auto& w = recorder.end("w");
  EXPECT_GE(w.begin_ns, before);
  EXPECT_GE(*w.end_ns, w.begin_ns);
}

}  // namespace
}  // namespace jetchar::jetson::energy
