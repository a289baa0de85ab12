#include "jetson/control/nvpmodel_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

constexpr std::string_view kKnextSuffix = "_KNEXT";

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  return text;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Quotes a fragment of the input for an error message, bounded so that a binary file does not
// produce a megabyte of message.
std::string quote(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 80)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (text.size() > 80) out += "...";
  return "'" + out + "'";
}

enum class Block { kNone, kParam, kPowerModel, kOther };

class Parser {
 public:
  Parser(std::string_view text, std::string source) : text_(text) { config_.source = std::move(source); }

  NvpmodelConfig run() {
    int line_number = 0;
    size_t position = 0;
    while (position <= text_.size()) {
      size_t end = text_.find('\n', position);
      if (end == std::string_view::npos) end = text_.size();
      ++line_number;
      parse_line(text_.substr(position, end - position), line_number);
      position = end + 1;
    }
    finish(line_number);
    return std::move(config_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& problem) const {
    throw NvpmodelParseError(config_.source, line, problem);
  }

  void parse_line(std::string_view raw, int line) {
    std::string_view content = raw;
    if (const size_t hash = content.find('#'); hash != std::string_view::npos) content = content.substr(0, hash);
    content = trim(content);
    if (content.empty()) return;
    if (content.front() == '<') {
      parse_header(content, line);
      return;
    }
    const auto words = split_words(content);
    switch (block_) {
      case Block::kNone:
        fail(line, fmt::format("expected a '< PARAM ... >', '< POWER_MODEL ... >' or '< PM_CONFIG ... >' header "
                               "before settings, got {}",
                               quote(content)));
      case Block::kOther:
        fail(line, fmt::format("expected a new '< ... >' header: PM_CONFIG and FAN_CONFIG take no settings, got {}",
                               quote(content)));
      case Block::kParam: parse_param_argument(words, content, line); return;
      case Block::kPowerModel: parse_mode_setting(words, content, line); return;
    }
  }

  std::map<std::string, std::string> parse_attributes(std::string_view inner, std::string& keyword, int line) {
    const auto words = split_words(inner);
    if (words.empty()) fail(line, "expected a block keyword inside '< >'");
    keyword = std::string(words.front());
    std::map<std::string, std::string> attributes;
    for (size_t i = 1; i < words.size(); ++i) {
      const size_t equals = words[i].find('=');
      if (equals == std::string_view::npos || equals == 0) {
        fail(line, fmt::format("expected KEY=VALUE in the {} header, got {}", keyword, quote(words[i])));
      }
      attributes[std::string(words[i].substr(0, equals))] = std::string(words[i].substr(equals + 1));
    }
    return attributes;
  }

  std::string required(const std::map<std::string, std::string>& attributes, const std::string& key,
                       const std::string& keyword, int line) const {
    const auto it = attributes.find(key);
    if (it == attributes.end() || it->second.empty()) {
      fail(line, fmt::format("expected {}=... in the {} header", key, keyword));
    }
    return it->second;
  }

  void parse_header(std::string_view content, int line) {
    if (content.back() != '>') fail(line, fmt::format("expected a header ending in '>', got {}", quote(content)));
    std::string keyword;
    const auto attributes = parse_attributes(content.substr(1, content.size() - 2), keyword, line);
    if (keyword == "PARAM") {
      ParamDefinition param;
      const std::string type = required(attributes, "TYPE", keyword, line);
      if (type == "FILE") {
        param.type = ParamType::kFile;
      } else if (type == "CLOCK") {
        param.type = ParamType::kClock;
      } else if (type == "HWMON") {
        param.type = ParamType::kFile;
        param.hwmon = true;
      } else {
        fail(line, fmt::format("expected TYPE=FILE, TYPE=CLOCK or TYPE=HWMON, got TYPE={}", quote(type)));
      }
      param.name = required(attributes, "NAME", keyword, line);
      param.line = line;
      if (config_.find_param(param.name) != nullptr) {
        fail(line, fmt::format("PARAM {} is defined twice", quote(param.name)));
      }
      config_.params.push_back(std::move(param));
      block_ = Block::kParam;
    } else if (keyword == "POWER_MODEL") {
      PowerModel mode;
      const std::string id = required(attributes, "ID", keyword, line);
      const auto value = parse_integer(id);
      if (!value || *value < 0 || *value > 1000000) {
        fail(line, fmt::format("expected a non-negative integer ID, got ID={}", quote(id)));
      }
      mode.id = static_cast<int>(*value);
      mode.name = required(attributes, "NAME", keyword, line);
      mode.line = line;
      if (config_.find_mode(mode.id) != nullptr) fail(line, fmt::format("POWER_MODEL ID={} is defined twice", mode.id));
      config_.modes.push_back(std::move(mode));
      block_ = Block::kPowerModel;
    } else if (keyword == "PM_CONFIG") {
      const std::string text = required(attributes, "DEFAULT", keyword, line);
      const auto value = parse_integer(text);
      if (!value || *value < 0 || *value > 1000000) {
        fail(line, fmt::format("expected a mode id in DEFAULT=, got {}", quote(text)));
      }
      if (default_line_ != 0) fail(line, fmt::format("PM_CONFIG given twice (first on line {})", default_line_));
      config_.default_mode = static_cast<int>(*value);
      default_line_ = line;
      block_ = Block::kOther;
    } else if (keyword == "FAN_CONFIG") {
      config_.fan_config = attributes;
      block_ = Block::kOther;
    } else {
      fail(line, fmt::format("expected PARAM, POWER_MODEL, PM_CONFIG or FAN_CONFIG, got {}", quote(keyword)));
    }
  }

  void parse_param_argument(const std::vector<std::string_view>& words, std::string_view content, int line) {
    ParamDefinition& param = config_.params.back();
    if (param.hwmon && words.size() != 3) {
      fail(line,
           fmt::format("expected 'ARG_NAME /path ATTRIBUTE' in HWMON PARAM {}, got {}", param.name, quote(content)));
    }
    if (!param.hwmon && words.size() != 2) {
      fail(line, fmt::format("expected 'ARG_NAME /path' in PARAM {}, got {}", param.name, quote(content)));
    }
    std::optional<std::string> attribute;
    if (param.hwmon) {
      if (words[2].find('/') != std::string_view::npos || words[2] == "." || words[2] == "..") {
        fail(line, fmt::format("expected a file name (no '/') as the attribute of {} in HWMON PARAM {}, got {}",
                               words[0], param.name, quote(words[2])));
      }
      attribute = std::string(words[2]);
    }
    if (words[1].front() != '/') {
      fail(line,
           fmt::format("expected an absolute path for {} in PARAM {}, got {}", words[0], param.name, quote(words[1])));
    }
    std::string name(words[0]);
    const std::string path(words[1]);
    const bool knext = name.size() > kKnextSuffix.size() && name.ends_with(kKnextSuffix);
    if (knext) name.resize(name.size() - kKnextSuffix.size());
    const std::string key = fmt::format("{}\n{}\n{}", param.name, name, knext ? "K" : "P");
    if (const auto seen = seen_arguments_.find(key); seen != seen_arguments_.end()) {
      fail(line, fmt::format("argument {} is given twice in PARAM {} (first on line {})", words[0], param.name,
                             seen->second));
    }
    seen_arguments_[key] = line;
    auto it = std::find_if(param.arguments.begin(), param.arguments.end(),
                           [&](const ParamArgument& a) { return a.name == name; });
    if (it == param.arguments.end()) {
      // A *_KNEXT line without a primary (yet) stands alone until the primary shows up.
      param.arguments.push_back(knext ? ParamArgument{name, path, path, attribute, line}
                                      : ParamArgument{name, path, {}, attribute, line});
    } else if (knext) {
      it->knext = path;
    } else {
      // The KNEXT line came first: the primary path takes its place, KNEXT stays the alternate.
      it->path = path;
      it->line = line;
    }
  }

  void parse_mode_setting(const std::vector<std::string_view>& words, std::string_view content, int line) {
    PowerModel& mode = config_.modes.back();
    if (words.size() != 3) {
      fail(line, fmt::format("expected 'PARAM ARG VALUE' in POWER_MODEL {}, got {}", mode.name, quote(content)));
    }
    mode.settings.push_back(
        ModeSetting{std::string(words[0]), std::string(words[1]), std::string(words[2]), std::nullopt, false, line});
  }

  // Checks what needs the whole file: references to PARAMs (which may be defined after the mode
  // that uses them), value types, and the default mode.
  void finish(int last_line) {
    if (config_.modes.empty()) fail(last_line, "expected at least one '< POWER_MODEL ID=n NAME=... >' block");
    if (default_line_ == 0) fail(last_line, "expected '< PM_CONFIG DEFAULT=n >' (it is mandatory)");
    if (config_.find_mode(config_.default_mode) == nullptr) {
      fail(default_line_,
           fmt::format("PM_CONFIG DEFAULT={} names no POWER_MODEL; defined ids: {}", config_.default_mode, mode_ids()));
    }
    for (auto& mode : config_.modes) {
      for (auto& setting : mode.settings) {
        const ParamDefinition* param = config_.find_param(setting.param);
        if (param == nullptr) {
          fail(setting.line, fmt::format("POWER_MODEL {} uses PARAM {} which is not defined; defined: {}", mode.name,
                                         quote(setting.param), param_names()));
        }
        if (param->find(setting.argument) == nullptr) {
          std::string valid;
          for (const auto& a : param->arguments) valid += (valid.empty() ? "" : ", ") + a.name;
          fail(setting.line, fmt::format("PARAM {} has no argument {}; it has: {}", param->name,
                                         quote(setting.argument), valid.empty() ? "none" : valid));
        }
        if (param->type == ParamType::kClock) {
          const auto value = parse_integer(setting.value);
          if (!value || *value < -1) {
            fail(setting.line, fmt::format("expected an integer frequency or -1 (no cap) for {} {}, got {}",
                                           setting.param, setting.argument, quote(setting.value)));
          }
          setting.is_clock = true;
          if (*value != -1) setting.clock_value = *value;
        }
      }
    }
  }

  std::string mode_ids() const {
    std::string ids;
    for (const auto& m : config_.modes) ids += (ids.empty() ? "" : ", ") + std::to_string(m.id);
    return ids;
  }

  std::string param_names() const {
    std::string names;
    for (const auto& p : config_.params) names += (names.empty() ? "" : ", ") + p.name;
    return names.empty() ? "none" : names;
  }

  std::string_view text_;
  NvpmodelConfig config_;
  Block block_ = Block::kNone;
  int default_line_ = 0;
  std::map<std::string, int> seen_arguments_;
};

}  // namespace

NvpmodelParseError::NvpmodelParseError(const std::string& source, int line, const std::string& problem)
    : std::invalid_argument(fmt::format("{}:{}: {}", source, line, problem)), line_(line) {}

const ParamArgument* ParamDefinition::find(std::string_view argument) const {
  for (const auto& a : arguments) {
    if (a.name == argument) return &a;
  }
  return nullptr;
}

const ModeSetting* PowerModel::find(std::string_view param, std::string_view argument) const {
  const ModeSetting* found = nullptr;
  for (const auto& s : settings) {
    if (s.param == param && s.argument == argument) found = &s;
  }
  return found;
}

const ParamDefinition* NvpmodelConfig::find_param(std::string_view name) const {
  for (const auto& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const PowerModel* NvpmodelConfig::find_mode(int id) const {
  for (const auto& m : modes) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

const PowerModel& NvpmodelConfig::mode(int id) const {
  if (const PowerModel* m = find_mode(id)) return *m;
  std::string valid;
  for (const auto& m : modes) valid += fmt::format("{}{} ({})", valid.empty() ? "" : ", ", m.id, m.name);
  throw std::invalid_argument(fmt::format("power mode {} is not defined in {}; valid modes: {}", id, source, valid));
}

const PowerModel& NvpmodelConfig::mode(std::string_view id_or_name) const {
  const bool numeric = !id_or_name.empty() &&
                       std::all_of(id_or_name.begin(), id_or_name.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (numeric && id_or_name.size() <= 9) return mode(std::stoi(std::string(id_or_name)));
  for (const auto& m : modes) {
    if (m.name == id_or_name) return m;
  }
  std::string valid;
  for (const auto& m : modes) valid += fmt::format("{}{} ({})", valid.empty() ? "" : ", ", m.id, m.name);
  throw std::invalid_argument(
      fmt::format("power mode '{}' is not defined in {}; valid modes (id or name): {}", id_or_name, source, valid));
}

NvpmodelConfig parse_nvpmodel_config(std::string_view text, const std::string& source) {
  return Parser(text, source).run();
}

NvpmodelConfig read_nvpmodel_config(const sysfs::Root& root, std::string_view path) {
  const std::string canonical = root.canonical(path);
  const std::string source = canonical == path ? std::string(path) : fmt::format("{} ({})", path, canonical);
  return parse_nvpmodel_config(sysfs::read_string(root, path), source);
}

bool is_cpu_cluster_param(std::string_view param) { return param.starts_with("CPU_") && param != "CPU_ONLINE"; }

PowerModelSummary summarize(const PowerModel& mode) {
  PowerModelSummary summary;
  std::set<int> online;
  std::set<int> offline;
  for (const auto& s : mode.settings) {
    if (s.param == "CPU_ONLINE" && s.argument.starts_with("CORE_")) {
      const auto core = parse_integer(std::string_view(s.argument).substr(5));
      if (!core) continue;
      const int n = static_cast<int>(*core);
      if (s.value == "0") {
        offline.insert(n);
        online.erase(n);
      } else {
        online.insert(n);
        offline.erase(n);
      }
    } else if (s.is_clock && s.argument == "MAX_FREQ") {
      if (is_cpu_cluster_param(s.param)) {
        summary.cpu_max_khz[s.param] = s.clock_value;
      } else if (s.param == "GPU") {
        summary.gpu_max_hz = s.clock_value;
      } else if (s.param == "EMC") {
        summary.emc_max_hz = (s.clock_value && *s.clock_value == 0) ? std::nullopt : s.clock_value;
      }
    } else if (s.argument == "TPC_PG_MASK") {
      summary.tpc_pg_mask = s.value;
    }
  }
  summary.online_cores.assign(online.begin(), online.end());
  summary.offline_cores.assign(offline.begin(), offline.end());
  return summary;
}

}  // namespace jetchar::jetson
