// Kernel device names carry numbers ("thermal_zone10", "hwmon2", "policy4"); listing them in
// numeric order keeps reports stable and readable (plain sorting puts zone10 before zone2).
#pragma once

#include <string>
#include <vector>

namespace jetchar::jetson {

/// Sorts paths by their non-digit text and then by the value of each digit run.
std::vector<std::string> natural_sorted(std::vector<std::string> paths);
/// The trailing decimal number of a name ("hwmon12" -> 12); -1 when there is none.
int trailing_number(const std::string& name);

}  // namespace jetchar::jetson
