// The kernel's CPU list format ("0-3,6", "0,3-5", "" for none), as in
// /sys/devices/system/cpu/online and cpufreq/policyN/related_cpus.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jetchar::sysfs {

/// Parses a CPU list into sorted, unique CPU numbers. Throws FormatError naming `source`.
std::vector<int> parse_cpu_list(std::string_view text, std::string_view source = "cpu list");
/// Formats CPU numbers the way the kernel does (ranges of 2+ consecutive CPUs as "a-b").
std::string format_cpu_list(std::vector<int> cpus);

}  // namespace jetchar::sysfs
