// Reading a file to its end with read(2). Sysfs attributes report a size of 4096 whatever their
// content and procfs files a size of 0, so a read cannot be sized from stat(2) or a stream's
// seek: it goes on until read(2) returns 0. Reads interrupted by a signal (EINTR) are retried.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "sysfs/error.h"

namespace jetchar::sysfs {

/// Everything `fd` yields until end of file. Throws IoError(`name`, "read", errno) when a read
/// fails (EBADF for a descriptor that is not open for reading, EIO, EISDIR...).
std::string read_to_end(int fd, std::string_view name);

/// The whole content of `file`. Throws IoError(file, "read", errno) naming the file: ENOENT when
/// it does not exist (or vanished), EACCES, EISDIR for a directory, and any read error.
std::string read_whole_file(const std::filesystem::path& file);

/// As read_whole_file, for a file a user names as input: one that yields more than `max_bytes`
/// (a huge file, or a device that never ends: /dev/zero) is read no further and refused with
/// FormatError "FILE: more than N bytes; expected WHAT of at most N MiB". A FIFO or a terminal is
/// read like a file, up to the limit.
std::string read_file_at_most(const std::filesystem::path& file, std::size_t max_bytes, std::string_view what);

/// As read_whole_file, for readers whose callers expect their own error type (a spec or a data
/// set that cannot be read is bad input, exit 3): a failure throws `make_error(io_error)`.
template <typename MakeError>
std::string read_whole_file(const std::filesystem::path& file, MakeError&& make_error) {
  try {
    return read_whole_file(file);
  } catch (const IoError& e) {
    throw make_error(e);
  }
}

/// Writes `content` to `file` whole or not at all (sysfs/output_file.h: a temporary file of a
/// unique name, fsync'd and renamed over `file`), so that a kill mid-write never leaves a torn
/// file (an earlier one stays as it was). Throws std::system_error naming `file`.
void replace_file(const std::filesystem::path& file, std::string_view content);

}  // namespace jetchar::sysfs
