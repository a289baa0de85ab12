// The measurement `jetchar monitor` makes (jetson/measurement/monitor_measurement.h), on a simulated
// board: its default rates and display pace, a span with its sample log and energy, the live line
// on a terminal, a baseload, a meter that cannot be opened, and a span a signal ends.
#include "jetson/measurement/monitor_measurement.h"
#include "jetson/open_board.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/temp_dir.h"

namespace jetchar::jetson::measurement {
namespace {

using namespace std::chrono_literals;

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

/// `rate_hz` 0: the monitor's default for `tty`.
MonitorSettings sampled_at(double rate_hz, bool tty = false) {
  MonitorSettings settings;
  settings.rate_hz = rate_hz;
  settings.tty = tty;
  return settings;
}

/// Runs `monitor` over its span (no signal comes) and returns what it gave to show.
std::vector<std::string> run(MonitorMeasurement& monitor) {
  std::vector<std::string> shown;
  monitor.start();
  const ControlInterrupt interrupt;
  monitor.run(interrupt, [&](const std::string& text) { shown.push_back(text); });
  return shown;
}

TEST(MonitorMeasurement, SamplesTwiceASecondOnATerminalTenTimesOtherwiseAndShowsAtMostFiveLinesASecond) {
  BoardHandle board = open_board("sim:agx-orin-r36");
  const MonitorMeasurement terminal(board, sampled_at(0, true));
  EXPECT_EQ(terminal.rate_hz(), 2.0);
  EXPECT_EQ(terminal.display_period(), 500ms);
  const MonitorMeasurement logged(board, sampled_at(0));
  EXPECT_EQ(logged.rate_hz(), 10.0);
  EXPECT_EQ(logged.display_period(), 200ms) << "not every 100 ms sample";
  EXPECT_EQ(MonitorMeasurement(board, sampled_at(1)).display_period(), 1s);
  EXPECT_EQ(MonitorMeasurement(board, sampled_at(1000)).display_period(), 200ms);
}

TEST(MonitorMeasurement, LogsEverySampleOfTheSpanAndSumsUpItsEnergy) {
  BoardHandle board = open_board("sim:agx-orin-r36");
  const testing::TempDir dir;
  MonitorSettings settings = sampled_at(100);
  settings.duration_s = 0.3;
  settings.log = MonitorSettings::Log{dir.path() / "samples.csv", SampleLog::Format::kCsv, "--csv"};
  {
    MonitorMeasurement monitor(board, settings);
    ASSERT_TRUE(std::filesystem::exists(dir.path() / "samples.csv")) << "the log exists before sampling starts";
    EXPECT_NE(monitor.header_text().find("power figures are modelled"), std::string::npos) << monitor.header_text();

    EXPECT_TRUE(run(monitor).empty()) << "off a terminal the samples go to the log, not to the screen";
    const MonitorSummary summary = monitor.summary();
    EXPECT_EQ(summary.results, "");
    EXPECT_TRUE(starts_with(summary.notes, "energy over ")) << summary.notes;
    EXPECT_NE(summary.notes.find("\nsampler: "), std::string::npos) << summary.notes;
  }  // the log is closed
  std::ifstream csv(dir.path() / "samples.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 3u) << "a header and the samples";
  EXPECT_TRUE(starts_with(lines[0], "source,time_s")) << lines[0];
}

TEST(MonitorMeasurement, RefreshesOneLineInPlaceOnATerminalAndEndsIt) {
  BoardHandle board = open_board("sim:agx-orin-r36");
  MonitorSettings settings = sampled_at(50, true);
  settings.duration_s = 0.5;
  MonitorMeasurement monitor(board, settings);
  const std::vector<std::string> shown = run(monitor);
  ASSERT_GE(shown.size(), 2u);
  for (std::size_t i = 0; i + 1 < shown.size(); ++i) EXPECT_TRUE(starts_with(shown[i], "\r\033[K")) << shown[i];
  EXPECT_EQ(shown.back().back(), '\n') << "the last line ends the refreshing line";
}

TEST(MonitorMeasurement, ABaseloadIsTheResultAndNothingIsShownWhileItIsMeasured) {
  BoardHandle board = open_board("sim:agx-orin-r36");
  MonitorSettings settings = sampled_at(100, true);
  settings.baseload_s = 0.3;
  MonitorMeasurement monitor(board, settings);
  EXPECT_TRUE(run(monitor).empty());
  const MonitorSummary summary = monitor.summary();
  EXPECT_TRUE(starts_with(summary.results, "idle power (baseload), onboard rails over ")) << summary.results;
  EXPECT_EQ(summary.notes.find("energy"), std::string::npos) << summary.notes;
  EXPECT_NE(summary.notes.find("sampler: "), std::string::npos) << summary.notes;
}

TEST(MonitorMeasurement, AMeterThatCannotBeOpenedEndsItBeforeTheLogIsWritten) {
  BoardHandle board = open_board("sim:agx-orin-r36");
  const testing::TempDir dir;
  MonitorSettings settings;
  settings.meter = parse_meter_spec("wattsup:" + (dir.path() / "no-such-tty").string(), "--meter");
  settings.log = MonitorSettings::Log{dir.path() / "samples.jsonl", SampleLog::Format::kJsonl, "--jsonl"};
  EXPECT_ANY_THROW({ const MonitorMeasurement monitor(board, settings); });
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "samples.jsonl"));
}

TEST(MonitorMeasurement, ASignalEndsAnOpenEndedSpanWithItsSummary) {
  BoardHandle board = open_board("sim:agx-orin-r36");
  MonitorMeasurement monitor(board, sampled_at(100));
  monitor.start();
  const ControlInterrupt interrupt;
  std::thread stopper([] {
    std::this_thread::sleep_for(300ms);
    ::kill(::getpid(), SIGINT);
  });
  monitor.run(interrupt, [](const std::string&) {});
  stopper.join();
  EXPECT_EQ(interrupt.signal(), SIGINT);
  EXPECT_TRUE(starts_with(monitor.summary().notes, "energy over ")) << "the samples until the signal are summed up";
}

}  // namespace
}  // namespace jetchar::jetson::measurement
