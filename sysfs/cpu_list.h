// The kernel's two ways of printing a set of CPUs: the range list of %*pbl ("0-3,6", "0,3-5",
// "" for none) in /sys/devices/system/cpu/{online,possible,present}, and the space-separated
// numbers of cpufreq_show_cpus() ("0 1 2 3", "" for none) in cpufreq's related_cpus and
// affected_cpus (docs/kernel-formats.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jetchar::sysfs {

/// Parses either form into sorted, unique CPU numbers. Throws FormatError naming `source`.
std::vector<int> parse_cpu_list(std::string_view text, std::string_view source = "cpu list");
/// Formats CPU numbers the way the kernel does (ranges of 2+ consecutive CPUs as "a-b").
std::string format_cpu_list(std::vector<int> cpus);

}  // namespace jetchar::sysfs
