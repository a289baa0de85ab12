// A file a command writes as its output (a report, an export, a snapshot): refused when it is one
// of the command's inputs or a file jetchar keeps (a results store, a journal), and written whole
// or not at all. The content goes to an unnamed file beside the output (O_TMPFILE; a file of a
// unique hidden name where the file system has no such files), is fsync'd, named and renamed over
// the output: a kill, a full disk or a second writer never leaves a torn output or replaces an
// earlier one with half of a new one, and a failed write removes what it made. A writer killed in
// the microseconds between naming its finished file and the rename leaves that hidden name
// (".OUTPUT.PID-N"); the next write of the same output removes it once that process is gone.
#pragma once

#include <filesystem>
#include <span>
#include <string_view>

namespace jetchar::sysfs {

/// Throws std::invalid_argument "OPTION PATH is ...; nothing was written" when `output`, followed
/// through links, is the same file as one of `inputs`, or a file inside an input folder that
/// jetchar keeps there (results.db and its -wal/-shm, sweep.textproto, journal, lock), or any
/// SQLite database, or a folder.
void refuse_output_onto(const std::filesystem::path& output, std::span<const std::filesystem::path> inputs,
                        std::string_view option);

/// Writes `content` to `output` whole or not at all (see above). Throws std::system_error naming
/// `output` (ENOSPC, EACCES, EROFS...) with `output` as it was.
void write_output_file(const std::filesystem::path& output, std::string_view content);

}  // namespace jetchar::sysfs
