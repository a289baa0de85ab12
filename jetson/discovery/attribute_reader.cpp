#include "jetson/discovery/attribute_reader.h"

#include <cstring>

#include "sysfs/attribute.h"
#include "sysfs/errno_name.h"
#include "sysfs/error.h"

namespace jetchar::jetson {

template <typename Read>
auto AttributeReader::guarded(const std::string& path, std::string_view item, ErrnoMeanings meanings, Read read)
    -> std::optional<decltype(read())> {
  if (!root_.exists(path)) return std::nullopt;
  try {
    return read();
  } catch (const sysfs::IoError& e) {
    std::string reason =
        std::string(std::strerror(e.error_number())) + " (" + sysfs::errno_name(e.error_number()) + ")";
    if (e.error_number() == 0) reason = e.what();
    for (const auto& [error_number, meaning] : meanings) {
      if (error_number == e.error_number()) reason += ": " + std::string(meaning);
    }
    note(std::string(item), path, "read failed: " + reason);
  } catch (const sysfs::FormatError& e) {
    note(std::string(item), path, e.what());
  }
  return std::nullopt;
}

std::optional<std::string> AttributeReader::text(const std::string& path, std::string_view item,
                                                 ErrnoMeanings meanings) {
  return guarded(path, item, meanings, [&] { return sysfs::read_string(root_, path); });
}

std::optional<std::int64_t> AttributeReader::integer(const std::string& path, std::string_view item,
                                                     ErrnoMeanings meanings, bool allow_unit_suffix) {
  return guarded(path, item, meanings, [&] { return sysfs::read_int(root_, path, allow_unit_suffix); });
}

std::optional<std::vector<std::int64_t>> AttributeReader::integers(const std::string& path, std::string_view item,
                                                                   ErrnoMeanings meanings, bool allow_unit_suffix) {
  return guarded(path, item, meanings, [&] { return sysfs::read_int_list(root_, path, allow_unit_suffix); });
}

std::optional<std::vector<std::string>> AttributeReader::words(const std::string& path, std::string_view item,
                                                               ErrnoMeanings meanings) {
  return guarded(path, item, meanings, [&] { return sysfs::read_word_list(root_, path); });
}

std::optional<std::vector<int>> AttributeReader::cpus(const std::string& path, std::string_view item,
                                                      ErrnoMeanings meanings) {
  return guarded(path, item, meanings, [&] { return sysfs::read_cpu_list(root_, path); });
}

std::optional<std::vector<std::string>> AttributeReader::dt_strings(const std::string& path, std::string_view item,
                                                                    ErrnoMeanings meanings) {
  return guarded(path, item, meanings, [&] { return sysfs::read_dt_strings(root_, path); });
}

void AttributeReader::note(std::string item, std::string path, std::string reason) {
  unavailable_.push_back(Unavailable{std::move(item), std::move(path), std::move(reason)});
}

}  // namespace jetchar::jetson
