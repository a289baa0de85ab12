// Discovery's reads of kernel attributes that a real board may refuse. A read can fail on a
// healthy board (an inactive cpufreq policy answers EBUSY, the GPU `load` fails while nvgpu cannot
// power the GPU up, an iio INA3221 read gives up with EAGAIN, a disabled hwmon channel answers
// ENODATA, a power-gated thermal zone EAGAIN), and a kernel we have not seen may print a form we
// do not parse. Either way that one item becomes unavailable, with the reason, and discovery goes
// on with the rest; only the board's identity is required.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::jetson {

/// One item discovery could not read.
struct Unavailable {
  std::string item;    ///< what it is, "policy4 scaling_available_frequencies"
  std::string path;    ///< the kernel path read
  std::string reason;  ///< "Device or resource busy (EBUSY): the policy is inactive (...)"
};

/// What an errno means for one attribute, added to the reason ("the GPU is rail-gated ...").
using ErrnoMeaning = std::pair<int, std::string_view>;
using ErrnoMeanings = std::span<const ErrnoMeaning>;

class AttributeReader {
 public:
  AttributeReader(const sysfs::Root& root, std::vector<Unavailable>& unavailable)
      : root_(root), unavailable_(unavailable) {}

  const sysfs::Root& root() const { return root_; }

  // Each returns nullopt without a note when the file does not exist, and nullopt with an
  // Unavailable entry when it exists but cannot be read or parsed.
  std::optional<std::string> text(const std::string& path, std::string_view item, ErrnoMeanings meanings = {});
  std::optional<std::int64_t> integer(const std::string& path, std::string_view item, ErrnoMeanings meanings = {},
                                      bool allow_unit_suffix = false);
  std::optional<std::vector<std::int64_t>> integers(const std::string& path, std::string_view item,
                                                    ErrnoMeanings meanings = {}, bool allow_unit_suffix = false);
  std::optional<std::vector<std::string>> words(const std::string& path, std::string_view item,
                                                ErrnoMeanings meanings = {});
  std::optional<std::vector<int>> cpus(const std::string& path, std::string_view item, ErrnoMeanings meanings = {});
  std::optional<std::vector<std::string>> dt_strings(const std::string& path, std::string_view item,
                                                     ErrnoMeanings meanings = {});

  /// Records an item that is unavailable for a reason discovery found itself.
  void note(std::string item, std::string path, std::string reason);

 private:
  template <typename Read>
  auto guarded(const std::string& path, std::string_view item, ErrnoMeanings meanings, Read read)
      -> std::optional<decltype(read())>;

  const sysfs::Root& root_;
  std::vector<Unavailable>& unavailable_;
};

}  // namespace jetchar::jetson
