// The inflated content of gzip-compressed data files, kept for the process's next open of the same
// unchanged file: a sweep opens its data set again for every run, and inflating Fashion-MNIST's
// 26 MB of training images took a quarter of a simulated power-mode sweep's CPU time. A run reads
// its samples from the inflated bytes in memory either way, so a cached file changes nothing a run
// measures; a file replaced or modified since (another device, inode, size, modification or change
// time) is read again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

namespace jetchar::loaders {

/// The inflated bytes of the gzip file at `path` (read_maybe_gzip's, shared). The cache keeps the
/// most recently used files up to kInflatedCacheBytes together; a larger file, and one modified or
/// changed in the last kInflatedCacheSettleSeconds, is inflated and not kept. Thread-safe. Throws
/// as read_maybe_gzip does, and sysfs::FormatError for a path that is not a regular file.
std::shared_ptr<const std::vector<std::uint8_t>> inflated_file(const std::filesystem::path& path);

inline constexpr std::size_t kInflatedCacheBytes = std::size_t{256} << 20;
inline constexpr int kInflatedCacheSettleSeconds = 3;

}  // namespace jetchar::loaders
