#include "sweeps/spec_io.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"

namespace jetchar::sweeps {
namespace {

constexpr const char* kValidExperiment = R"(
name: "lenet"
workload { model: "lenet5" dataset: "fashion-mnist:/usr/share/datasets/fashion-mnist" batch_size: 16 epochs: 2 }
loader { workers: 2 }
cache: DROP_BEFORE_FIRST_EPOCH
device { cpu_cores: 4 cpu_freq_mhz: 1420.8 dvfs: OFF }
measurement { sample_rate_hz: 100 }
)";

std::string spec_error_of(std::string_view text) {
  try {
    parse_experiment_spec(text, "spec.textproto");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SpecIoTest, ParsesAValidExperiment) {
  const auto spec = parse_experiment_spec(kValidExperiment, "spec.textproto");
  EXPECT_EQ(spec.workload().model(), "lenet5");
  EXPECT_EQ(spec.workload().batch_size(), 16u);
  EXPECT_EQ(spec.cache(), proto::DROP_BEFORE_FIRST_EPOCH);
  EXPECT_DOUBLE_EQ(spec.device().cpu_freq_mhz(), 1420.8);
  EXPECT_FALSE(spec.device().has_gpu_freq_mhz());
}

TEST(SpecIoTest, UnknownFieldNamesFileLineColumnAndField) {
  EXPECT_EQ(spec_error_of("workload {\n  model: \"lenet5\"\n  batch_sise: 16\n}\n"),
            "spec.textproto:3:13: field batch_sise: Message type \"jetchar.proto.WorkloadSpec\" has no field "
            "named \"batch_sise\".");
}

TEST(SpecIoTest, SyntaxErrorPointsAtTheLine) {
  const std::string error = spec_error_of("workload { model: \"lenet5\" batch_size: }\n");
  EXPECT_EQ(error.rfind("spec.textproto:1:", 0), 0u) << error;
}

TEST(SpecIoTest, OutOfRangeValueNamesTheFieldAndTheValidRange) {
  EXPECT_EQ(spec_error_of("workload {\n  model: \"lenet5\" dataset: \"synthetic:1x28x28\"\n  batch_size: 0\n}\n"),
            "spec.textproto:3:3: field workload.batch_size: 0 is out of range; valid: 1 to 65536");
  EXPECT_EQ(
      spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 }\nmeasurement {\n sample_rate_hz: 5000 }"),
      "spec.textproto:3:2: field measurement.sample_rate_hz: 5000 is out of range; valid: 1 to 1000");
}

TEST(SpecIoTest, OptimizerAndWeightDecayAreWorkloadFields) {
  const auto spec = parse_experiment_spec(
      "workload { model: \"bert-tiny-qa\" dataset: \"d:x\" batch_size: 4 optimizer: SGD weight_decay: 0.001 }",
      "spec.textproto");
  EXPECT_EQ(spec.workload().optimizer(), proto::SGD);
  EXPECT_DOUBLE_EQ(spec.workload().weight_decay(), 0.001);
  EXPECT_EQ(spec_error_of("workload {\n  model: \"m\" dataset: \"d:x\" batch_size: 1\n  weight_decay: 1.5\n}\n"),
            "spec.textproto:3:3: field workload.weight_decay: 1.5 is out of range; valid: 0 to 1 (AdamW's decoupled "
            "decay, SGD's L2 term)");
  EXPECT_NE(spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 weight_decay: nan }")
                .find("field workload.weight_decay: nan is out of range"),
            std::string::npos);
  EXPECT_NE(spec_error_of("workload { model: \"m\" batch_size: 1 optimizer: ADAM }")
                .find("field optimizer: Unknown enumeration value of \"ADAM\""),
            std::string::npos);
}

TEST(SpecIoTest, MissingModelIsAnError) {
  EXPECT_NE(spec_error_of("workload { batch_size: 4 }").find("field workload.model: is required"), std::string::npos);
}

TEST(SpecIoTest, PresetAndCustomModeConflict) {
  EXPECT_NE(spec_error_of(
                "workload { model: \"m\" dataset: \"d:x\" batch_size: 1 }\ndevice { preset_mode: 2 gpu_freq_mhz: 600 }")
                .find("field device.preset_mode: a preset mode cannot be combined"),
            std::string::npos);
}

TEST(SpecIoTest, BadDeviceName) {
  EXPECT_NE(spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 device: \"tpu\" }")
                .find("'tpu' is not a device; valid: cpu, cuda, cuda:N"),
            std::string::npos);
  EXPECT_EQ(spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 device: \"cuda:1\" }"), "no error");
  EXPECT_NE(spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 device: \"cuda:x\" }"), "no error");
  EXPECT_NE(spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 device: \"cuda:\" }"), "no error");
}

// workload.distributed: torchrun's ranges, each error naming the field, the value and what is valid.
TEST(SpecIoTest, DistributedFieldsAreCheckedAsTorchrunWouldCheckThem) {
  const auto spec = [](std::string_view distributed) {
    return fmt::format("workload {{ model: \"m\" dataset: \"d:x\" batch_size: 1 distributed {{ {} }} }}", distributed);
  };
  EXPECT_EQ(spec_error_of(spec("nproc_per_node: 4 backend: \"gloo\" timeout_s: 30")), "no error");
  EXPECT_EQ(
      spec_error_of(spec("nproc_per_node: 2 nnodes: 3 node_rank: 2 master_addr: \"10.0.0.1\" master_port: 29500")),
      "no error");
  EXPECT_NE(spec_error_of(spec("nproc_per_node: 300"))
                .find("workload.distributed.nproc_per_node: 300 is out of range; valid: 1 to 256"),
            std::string::npos);
  EXPECT_NE(spec_error_of(spec("nproc_per_node: 0")), "no error") << "a written 0 reads as unset";
  EXPECT_NE(spec_error_of(spec("nnodes: 2 node_rank: 2 master_port: 29500"))
                .find("workload.distributed.node_rank: 2 is out of range; valid: 0 to 1 (nnodes - 1)"),
            std::string::npos);
  EXPECT_NE(spec_error_of(spec("nnodes: 2")).find("workload.distributed.master_port: is required with nnodes > 1"),
            std::string::npos);
  EXPECT_NE(spec_error_of(spec("backend: \"mpi\"")).find("'mpi' is not a backend; valid: gloo, nccl"),
            std::string::npos);
  EXPECT_NE(spec_error_of(spec("timeout_s: -1")).find("valid: more than 0 up to 86400 s"), std::string::npos);
}

// Settings `train` and `infer` take as options are spec fields, so a sweep can vary them too.
TEST(SpecIoTest, ThreadsClassesAndNoWarmUpAreWorkloadFields) {
  EXPECT_EQ(spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 threads: 2 }"), "no error");
  EXPECT_NE(spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 threads: 2000 }")
                .find("field workload.threads: 2000 is out of range; valid: 1 to 1024"),
            std::string::npos);
  EXPECT_NE(spec_error_of("workload { model: \"m\" task: INFER batch_size: 1 inference { classes: 0 } }"), "no error")
      << "a written 0 reads as unset";
  const auto none = parse_experiment_spec(
      "workload { model: \"m\" task: INFER batch_size: 1 inference { warmup_batches: 0 classes: 7 } }", "s");
  EXPECT_TRUE(none.workload().inference().has_warmup_batches()) << "0 warm-up queries is no warm-up, not the default";
  EXPECT_EQ(none.workload().inference().classes(), 7u);
}

TEST(SpecIoTest, SingleStreamTakesBatchOneAndTheServersBoundIsPositive) {
  EXPECT_EQ(
      spec_error_of("workload { model: \"m\" task: INFER\n batch_size: 2 inference { scenario: SINGLE_STREAM } }"),
      "spec.textproto:2:2: field workload.batch_size: 2 is not valid with workload.inference.scenario "
      "SINGLE_STREAM (queries of one sample); valid: 1 (OFFLINE or SERVER take larger batches)");
  EXPECT_EQ(spec_error_of("workload { model: \"m\" task: INFER batch_size: 1 inference { scenario: SINGLE_STREAM } }"),
            "no error");
  EXPECT_EQ(spec_error_of("workload { model: \"m\" task: INFER batch_size: 8 inference { scenario: SERVER "
                          "latency_bound_ms: 15 } }"),
            "no error")
      << "a server's batch size is the largest batch it forms";
  EXPECT_EQ(spec_error_of("workload { model: \"m\" task: INFER batch_size: 8\n inference { scenario: SERVER\n"
                          " latency_bound_ms: 0 } }"),
            "spec.textproto:3:2: field workload.inference.latency_bound_ms: 0 ms is out of range; valid: more than 0 "
            "up to 3600000 ms (a p99 bound of the SERVER scenario)");
}

TEST(SpecIoTest, SweepAxisNeedsValuesOrARange) {
  try {
    parse_sweep_spec("name: \"s\"\naxes { field: \"workload.batch_size\" }\n", "sweep.textproto");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("needs values or a range"), std::string::npos);
  }
}

// A value of the wrong kind names the field it was given for, not the value ("field big").
TEST(SpecIoTest, ValueOfTheWrongKindNamesItsField) {
  EXPECT_EQ(spec_error_of("workload {\n  model: \"lenet5\"\n  batch_size: \"big\"\n}\n"),
            "spec.textproto:3:15: field batch_size: Expected integer, got: \"big\"");
  EXPECT_NE(spec_error_of("workload { model: \"m\" batch_size:\n 32.5 }").find("field batch_size: Expected integer"),
            std::string::npos);
  EXPECT_NE(spec_error_of("device { dvfs: MAYBE }").find("field dvfs: Unknown enumeration value of \"MAYBE\""),
            std::string::npos);
  // A syntax error names no field rather than a wrong one.
  EXPECT_EQ(spec_error_of("workload { model: \"m\" }}").find("field "), std::string::npos);
}

// proto3 cannot tell a written 0 from a field left out: `epochs: 0` used to run one epoch.
TEST(SpecIoTest, AWrittenZeroThatWouldReadAsUnsetIsRefused) {
  EXPECT_EQ(
      spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1\n  epochs: 0 }"),
      "spec.textproto:2:3: field workload.epochs: 0 cannot be told from leaving the field out (1 epoch); valid: 1 "
      "to 10000");
  EXPECT_NE(spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 }\nrepetitions: 0")
                .find("field repetitions: 0 cannot be told from leaving the field out (1 repetition)"),
            std::string::npos);
  EXPECT_NE(
      spec_error_of("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 }\nadaptive { warmup_minibatches: 0 }")
          .find("field adaptive.warmup_minibatches: 0 cannot be told"),
      std::string::npos);
  try {
    parse_sweep_spec("name: \"s\"\nbase {\n workload { model: \"m\" batch_size: 1 epochs: 0 } }\n", "sweep.textproto");
    FAIL() << "a sweep's base with epochs: 0 was accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "base.workload.epochs");
  }
  // Left out, the field keeps its default; a written non-zero value is taken.
  EXPECT_EQ(parse_experiment_spec("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 }", "s").workload().epochs(),
            0u);
  EXPECT_EQ(parse_experiment_spec("workload { model: \"m\" dataset: \"d:x\" batch_size: 1 epochs: 3 }", "s")
                .workload()
                .epochs(),
            3u);
}

TEST(SpecIoTest, MissingFileIsASpecError) { EXPECT_THROW(load_sweep_spec("/nonexistent/sweep.textproto"), SpecError); }

TEST(SpecIoTest, LoadsFromAFile) {
  testing::TempDir dir;
  const auto file = dir.write("e.textproto", kValidExperiment);
  EXPECT_EQ(load_experiment_spec(file).name(), "lenet");
}

std::string sweep_error(const std::string& name) {
  std::string text = "name: \"";
  text.append(name);
  text.append("\"\nbase { workload { model: \"lenet5\" dataset: \"synthetic:1x28x28\" batch_size: 16 } }\n");
  try {
    parse_sweep_spec(text, "sweep.textproto");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "no error";
}

// A sweep's name becomes results/<name>: it must stay one folder inside.
TEST(SpecIoTest, ASweepNameThatIsNoPlainFolderNameIsRefused) {
  EXPECT_NE(sweep_error("../../etc/x").find("sweep.textproto:1:1: field name: '../../etc/x' holds a path separator"),
            std::string::npos);
  EXPECT_NE(sweep_error("..").find("is a relative folder"), std::string::npos);
  EXPECT_NE(sweep_error("a\\tb").find("holds a control character"), std::string::npos);
  const std::string long_error = sweep_error(std::string(5000, 'n'));
  EXPECT_NE(long_error.find("is 5000 bytes long; at most 100"), std::string::npos);
  EXPECT_LT(long_error.size(), 400u) << "the message repeats the whole name";
  EXPECT_EQ(sweep_error("agx-orin_modes.v2"), "no error");
}

TEST(SpecIoTest, ASpecFileIsReadUpToItsLimitAndMayStartWithAByteOrderMark) {
  const jetchar::testing::TempDir dir;
  const auto bom = dir.write("bom.textproto", "\xEF\xBB\xBFname: \"bom\"\nbase { workload { model: \"lenet5\" } }\n");
  EXPECT_EQ(load_sweep_spec(bom).name(), "bom");
  try {
    (void)load_sweep_spec("/dev/zero");
    ADD_FAILURE() << "/dev/zero was read as a spec";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero: the file is larger than 16 MiB: not a spec"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace jetchar::sweeps
