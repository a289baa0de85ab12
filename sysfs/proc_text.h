// Small helpers shared by the procfs table parsers (/proc/stat, /proc/meminfo, /proc/diskstats,
// /proc/self/mountinfo). They are strict on purpose: a field that is not exactly a decimal number
// is an error, so a format change on some kernel is reported instead of read as a wrong value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::sysfs {

/// Lines of `text` without their '\n'; a final newline does not produce an empty last line.
std::vector<std::string_view> split_lines(std::string_view text);
/// Fields separated by runs of spaces or tabs (procfs pads columns with several spaces).
std::vector<std::string_view> split_fields(std::string_view line);
/// Fields separated by exactly one ' ' (mountinfo, where an empty field is significant).
std::vector<std::string_view> split_on_space(std::string_view line);
/// A whole field as an unsigned decimal; nullopt for anything else (sign, suffix, overflow, empty).
std::optional<std::uint64_t> parse_u64(std::string_view field);
/// `text` shortened to at most `max_chars` for an error message, with non-printable bytes shown
/// as '?', so a corrupt file cannot flood or garble the one-line CLI error.
std::string excerpt(std::string_view text, std::size_t max_chars = 120);

}  // namespace jetchar::sysfs
