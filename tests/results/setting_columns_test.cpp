// Every field of the spec that an axis can set either tells runs apart (a column of the store's
// run_settings, the export and the analysis key) or is listed with why it does not: the test
// walks ExperimentSpec's schema, then runs each setting through the store, the export and both
// analysis readers and checks that two runs differing in it alone are two configurations.
#include "results/schema/setting_columns.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "analysis/config_point.h"
#include "analysis/results_file.h"
#include "analysis/results_store_reader.h"
#include "results/export.h"
#include "results/setting_values.h"
#include "results/store.h"
#include "tests/support/temp_dir.h"

namespace jetchar::results {
namespace {

namespace pb = google::protobuf;

// Dotted paths of every field an axis can set (sweeps/plan.cpp's set_field: any non-repeated
// field that is not a message), and of each repeated field as a whole (a spec sets it, no axis).
void leaf_fields(const pb::Descriptor& message, const std::string& prefix, std::vector<std::string>& out) {
  for (int i = 0; i < message.field_count(); ++i) {
    const pb::FieldDescriptor& field = *message.field(i);
    const std::string path = prefix + field.name();
    if (field.is_repeated()) {
      out.push_back(path);
      continue;
    }
    if (field.cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      leaf_fields(*field.message_type(), path + ".", out);
    } else {
      out.push_back(path);
    }
  }
}

std::vector<std::string> axis_fields() {
  std::vector<std::string> fields;
  leaf_fields(*proto::ExperimentSpec::descriptor(), "", fields);
  return fields;
}

TEST(SettingColumnsTest, EveryFieldAnAxisCanSetIsASettingOrSaysWhyNot) {
  std::set<std::string> settings, columns, not_settings;
  for (const auto& s : schema::kSettingColumns) {
    EXPECT_TRUE(settings.emplace(s.field).second) << s.field << " is listed twice";
    EXPECT_TRUE(columns.emplace(s.column).second) << "column " << s.column << " is named twice";
  }
  for (const auto& n : schema::kNotSettings) {
    EXPECT_TRUE(not_settings.emplace(n.field).second) << n.field << " is listed twice";
    EXPECT_FALSE(n.why.empty()) << n.field;
  }
  const auto fields = axis_fields();
  for (const auto& field : fields) {
    EXPECT_EQ(settings.count(field) + not_settings.count(field), 1u)
        << "ExperimentSpec field " << field
        << " must be in exactly one of setting_columns.h's kSettingColumns (it tells runs apart) and kNotSettings";
  }
  const std::set<std::string> known(fields.begin(), fields.end());
  for (const auto& listed : settings) EXPECT_TRUE(known.count(listed)) << listed << " is not a field an axis sets";
  for (const auto& listed : not_settings) EXPECT_TRUE(known.count(listed)) << listed << " is not a field an axis sets";
}

// A trained run with two epochs (the warm one is a sample) in a typical resolved spec.
proto::RunResult make_run(const std::string& run_id) {
  proto::RunResult r;
  r.set_sweep("s");
  r.set_run_id(run_id);
  r.set_status(proto::OK);
  r.mutable_context()->set_power_mode("MAXN");
  r.mutable_context()->set_board_model("board");
  auto& spec = *r.mutable_resolved();
  auto& w = *spec.mutable_workload();
  w.set_model("lenet5");
  w.set_dataset("fashion-mnist:/data/fashion-mnist");
  w.set_task(proto::TRAIN);
  w.set_batch_size(16);
  w.set_accumulate(1);
  w.set_precision(proto::FP32);
  w.set_device("cpu");
  w.set_threads(2);
  spec.mutable_loader()->set_workers(2);
  spec.mutable_loader()->set_shuffle(true);
  spec.set_cache(proto::WARM);
  spec.mutable_measurement()->set_sample_rate_hz(100);
  for (int epoch = 0; epoch < 2; ++epoch) {
    auto& e = *r.add_epochs();
    e.set_epoch(epoch);
    e.set_e2e_s(1.0 + epoch);
    e.set_energy_j(5.0);
  }
  return r;
}

// `path` in `spec` set to another value than it has.
void change(proto::ExperimentSpec& spec, std::string_view path) {
  pb::Message* message = &spec;
  for (;;) {
    const std::size_t dot = path.find('.');
    const pb::FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(std::string(path.substr(0, dot)));
    ASSERT_NE(field, nullptr) << path;
    const pb::Reflection& r = *message->GetReflection();
    if (field->is_repeated() && field->message_type() == proto::PhaseSpec::descriptor()) {
      // workload.phases, the one repeated setting: another phase makes other runs.
      auto* phase = static_cast<proto::PhaseSpec*>(r.AddMessage(message, field));
      phase->set_sequence_length(128);
      phase->set_steps(10);
      return;
    }
    if (dot == std::string_view::npos) {
      switch (field->cpp_type()) {
        case pb::FieldDescriptor::CPPTYPE_BOOL: r.SetBool(message, field, !r.GetBool(*message, field)); return;
        case pb::FieldDescriptor::CPPTYPE_UINT32: r.SetUInt32(message, field, r.GetUInt32(*message, field) + 3); return;
        case pb::FieldDescriptor::CPPTYPE_DOUBLE:
          r.SetDouble(message, field, r.GetDouble(*message, field) + 0.25);
          return;
        case pb::FieldDescriptor::CPPTYPE_STRING:
          // workload.dataset's setting is its options; the others take any text.
          r.SetString(message, field, r.GetString(*message, field) + "?max_length=64");
          return;
        case pb::FieldDescriptor::CPPTYPE_ENUM: {
          const int now = r.GetEnumValue(*message, field);
          r.SetEnumValue(message, field, now == 2 ? 1 : 2);
          return;
        }
        default: FAIL() << path << " has a type the test does not change";
      }
    }
    message = r.MutableMessage(message, field);
    path.remove_prefix(dot + 1);
  }
}

std::set<analysis::ConfigKey> keys(const std::vector<analysis::RunRecord>& records) {
  std::set<analysis::ConfigKey> out;
  for (const auto& point : analysis::aggregate(records)) out.insert(point.key);
  return out;
}

TEST(SettingColumnsTest, EverySettingTellsRunsApartInTheStoreTheExportAndTheKey) {
  for (const auto& setting : schema::kSettingColumns) {
    SCOPED_TRACE(std::string(setting.field));
    const proto::RunResult base = make_run("base");
    proto::RunResult other = make_run("other");
    change(*other.mutable_resolved(), setting.field);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());

    const auto base_values = setting_values(base), other_values = setting_values(other);
    ASSERT_EQ(base_values.size(), schema::kSettingColumns.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < base_values.size(); ++i) differing += base_values[i] != other_values[i] ? 1 : 0;
    EXPECT_EQ(differing, 1u) << "changing the field changes its setting alone";

    testing::TempDir dir;
    {
      ResultsStore store(dir.path() / "results.db");
      store.save(base);
      store.save(other);
    }
    const auto from_store = keys(analysis::ResultsStoreReader(dir.path()).records());
    EXPECT_EQ(from_store.size(), 2u) << "the store's records are one configuration";

    std::ostringstream csv;
    export_results({base, other}, ExportFormat::kCsv, csv);
    EXPECT_NE(csv.str().substr(0, csv.str().find('\n')).find(std::string(setting.column)), std::string::npos)
        << "the export has no column " << setting.column;
    const auto from_export = keys(analysis::parse_results_csv(csv.str(), "export.csv"));
    EXPECT_EQ(from_export.size(), 2u) << "the export's records are one configuration";
    EXPECT_EQ(from_export, from_store) << "the store and its export key the runs alike";
  }
}

TEST(SettingColumnsTest, APretrainedCheckpointIsItsDigestNotItsFolder) {
  proto::RunResult a = make_run("a"), b = make_run("b");
  a.mutable_resolved()->mutable_workload()->set_pretrained("/models/bert");
  b.mutable_resolved()->mutable_workload()->set_pretrained("/copy/of/bert");
  a.mutable_context()->set_pretrained_sha256("sha256:ab");
  b.mutable_context()->set_pretrained_sha256("sha256:ab");
  EXPECT_EQ(setting_values(a), setting_values(b));
  b.mutable_context()->set_pretrained_sha256("sha256:cd");
  EXPECT_NE(setting_values(a), setting_values(b));
}

}  // namespace
}  // namespace jetchar::results
