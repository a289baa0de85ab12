// Typed reads and writes of kernel attributes under a Root. Reads trim the trailing newline the
// kernel appends; writes can verify by reading back, because firmware may silently ignore a
// value (e.g. an EMC rate not in the BPMP table).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::sysfs {

/// Whole content, trailing whitespace removed. Throws IoError (with the errno a real kernel, or a
/// tree's injected error, gave).
std::string read_string(const Root& root, std::string_view path);
/// Like read_string, but nullopt when the file does not exist or cannot be read.
std::optional<std::string> try_read_string(const Root& root, std::string_view path);

/// A decimal integer, optionally followed by a unit suffix that is stripped and ignored when
/// `allow_unit_suffix`: the R32 INA3221 limits read "1000 ma", and BPMP firmware output has been
/// seen with " (kHz)". Throws IoError / FormatError.
std::int64_t read_int(const Root& root, std::string_view path, bool allow_unit_suffix = false);
std::optional<std::int64_t> try_read_int(const Root& root, std::string_view path);

/// Whitespace-separated integers ("102000 204000 307200 \n": cpufreq ends each with a space).
/// With `allow_unit_suffix`, a last word that is a unit ("(kHz)", "mV") is dropped.
std::vector<std::int64_t> read_int_list(const Root& root, std::string_view path, bool allow_unit_suffix = false);
/// Whitespace-separated words ("performance schedutil").
std::vector<std::string> read_word_list(const Root& root, std::string_view path);
/// A kernel CPU list: a range list ("0-3,6") or cpufreq's space-separated form ("0 1 2 3").
std::vector<int> read_cpu_list(const Root& root, std::string_view path);
/// NUL-separated device-tree strings (compatible: "nvidia,p3737-0000+p3701-0000\0nvidia,tegra234\0").
std::vector<std::string> read_dt_strings(const Root& root, std::string_view path);

/// A value as read_string returns it: without the whitespace around it or the NULs after it (a
/// sysfs value ends with '\n', a device-tree string with '\0').
std::string_view trim_value(std::string_view text);

/// Parses a decimal integer with an optional unit suffix; `source` names the origin in errors.
std::int64_t parse_int(std::string_view text, std::string_view source, bool allow_unit_suffix = false);

enum class Verify { kNone, kReadBack };

/// Writes `value` (no newline added). With kReadBack, reads the attribute again and throws
/// IoError (operation "verify write") when it does not read back as written.
void write_string(const Root& root, std::string_view path, std::string_view value, Verify verify = Verify::kNone);
void write_int(const Root& root, std::string_view path, std::int64_t value, Verify verify = Verify::kNone);

}  // namespace jetchar::sysfs
