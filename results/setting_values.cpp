#include "results/setting_values.h"

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <stdexcept>

#include "results/schema/setting_columns.h"

namespace jetchar::results {
namespace {

namespace pb = google::protobuf;

// The text of `field` in `message`: "" when a field with presence is unset, an enum at its
// UNSPECIFIED zero or an empty string; a number or a boolean as it is (workers 0 is a setting).
std::string field_text(const pb::Message& message, const pb::FieldDescriptor& field) {
  const pb::Reflection& r = *message.GetReflection();
  if (field.has_presence() && !r.HasField(message, &field)) return {};
  switch (field.cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_BOOL: return r.GetBool(message, &field) ? "true" : "false";
    case pb::FieldDescriptor::CPPTYPE_UINT32: return std::to_string(r.GetUInt32(message, &field));
    case pb::FieldDescriptor::CPPTYPE_UINT64: return std::to_string(r.GetUInt64(message, &field));
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: return fmt::format("{}", r.GetDouble(message, &field));
    case pb::FieldDescriptor::CPPTYPE_STRING: return r.GetString(message, &field);
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      const pb::EnumValueDescriptor* v = r.GetEnum(message, &field);
      return v->number() == 0 ? std::string() : std::string(v->name());
    }
    default:
      // setting_columns_test keeps the list to scalar fields of these types.
      throw std::logic_error(fmt::format("setting {} has a type setting_values does not print", field.full_name()));
  }
}

// The value of the dotted `path` in `spec`; an unset message on the way reads as its defaults, so
// that a field means the same whether its message was written or not.
std::string path_text(const proto::ExperimentSpec& spec, std::string_view path) {
  const pb::Message* message = &spec;
  for (;;) {
    const std::size_t dot = path.find('.');
    const std::string name(path.substr(0, dot));
    const pb::FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(name);
    if (field == nullptr) throw std::logic_error(fmt::format("setting {} is not a field of ExperimentSpec", path));
    if (dot == std::string_view::npos) return field_text(*message, *field);
    message = &message->GetReflection()->GetMessage(*message, field);
    path.remove_prefix(dot + 1);
  }
}

}  // namespace

std::vector<std::pair<std::string_view, std::string>> setting_values(const proto::RunResult& result) {
  const proto::ExperimentSpec& spec = result.resolved().has_workload() ? result.resolved() : result.requested();
  std::vector<std::pair<std::string_view, std::string>> values;
  values.reserve(schema::kSettingColumns.size());
  for (const auto& setting : schema::kSettingColumns) {
    std::string text;
    if (setting.field == "workload.dataset") {
      const std::string& dataset = spec.workload().dataset();
      if (const auto query = dataset.find('?'); query != std::string::npos) text = dataset.substr(query + 1);
    } else if (setting.field == "workload.phases") {
      for (const auto& phase : spec.workload().phases()) text += (text.empty() ? "" : "; ") + phase_text(phase);
    } else if (setting.field == "workload.pretrained" && !result.context().pretrained_sha256().empty()) {
      text = result.context().pretrained_sha256();
    } else {
      text = path_text(spec, setting.field);
    }
    values.emplace_back(setting.column, std::move(text));
  }
  return values;
}

std::string phase_text(const proto::PhaseSpec& phase) {
  auto text = fmt::format("seq={},steps={}", phase.sequence_length(), phase.steps());
  if (phase.batch_size() > 0) text += fmt::format(",batch={}", phase.batch_size());
  if (phase.accumulate() > 0) text += fmt::format(",accumulate={}", phase.accumulate());
  if (phase.has_learning_rate()) text += fmt::format(",lr={}", phase.learning_rate());
  if (phase.has_warmup_proportion()) text += fmt::format(",warmup={}", phase.warmup_proportion());
  return text;
}

}  // namespace jetchar::results
