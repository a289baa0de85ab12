// `jetchar device capture`: a board fixture manifest (tests/fixtures/boards/README.md) of exactly
// what jetchar looks at on a board, so that a user with a board we have not seen can send it and
// jetchar can run on it as `--board sim:FILE`.
//
// What is captured: every path that board discovery, device control and telemetry discovery ask
// the Root about (files with their exact bytes, the symlinks on the way, folders), the regular
// files beside them in /sys, and every attribute of each entry of a folder they list (each devfreq
// node of /sys/class/devfreq, each hwmon device, each thermal zone, each cpufreq policy). Reads
// that fail become `fail-read PATH = ERRNO`; modes other than 0644 (files) and 0755 (folders)
// become `mode` lines. Nothing is written. debugfs and /proc contribute only the exact files read.
// Serial numbers and MAC addresses are replaced by a placeholder unless redaction is turned off.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::jetson {

struct CaptureOptions {
  bool redact = true;
  /// Files larger than this are left out (noted): no attribute jetchar reads comes close.
  std::size_t max_file_bytes = 1 << 20;
};

struct BoardCapture {
  std::string manifest;  ///< the manifest text
  std::size_t files = 0;
  std::size_t links = 0;
  std::size_t folders = 0;
  std::size_t failing_reads = 0;
  /// What discovery found absent on this board ("GPU: no devfreq node ..."), for the summary.
  std::vector<std::string> absent;
  /// Files left out or changed (too large, redacted), and discovery steps that failed.
  std::vector<std::string> notes;
};

/// Captures the board under `root` ("/" for this machine). Never throws for what the board lacks;
/// throws sysfs::IoError only when `root` itself cannot be read.
BoardCapture capture_board(const sysfs::Root& root, const CaptureOptions& options = {});

}  // namespace jetchar::jetson
