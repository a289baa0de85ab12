// Symbolic names of the errno values a kernel attribute can fail with ("EBUSY" <-> 16). Board
// fixtures name injected errors this way, and messages about failed reads quote the name beside
// strerror's text, because the name is what kernel sources and bug reports use.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jetchar::sysfs {

/// "EBUSY" for 16; "errno 524" for a value without a name in the table.
std::string errno_name(int error_number);
/// "No such file or directory (ENOENT)": strerror's text and the name, as IoError's messages end
/// (for callers that rethrow a failed read as their own error type).
std::string errno_text(int error_number);
/// 16 for "EBUSY"; nullopt for a name the table does not hold.
std::optional<int> errno_from_name(std::string_view name);
/// The names errno_from_name() accepts, separated by spaces (for error messages).
std::string known_errno_names();

}  // namespace jetchar::sysfs
