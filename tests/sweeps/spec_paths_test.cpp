#include "sweeps/spec_paths.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "sweeps/spec_io.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sweeps {
namespace {

namespace fs = std::filesystem;

const fs::path kBase = "/specs/examples";

TEST(SpecPathsTest, ARelativePathResolvesFromTheSpecsFolderAndAnAbsoluteOneStays) {
  EXPECT_EQ(resolve_spec_path("squad", kBase), "/specs/examples/squad");
  EXPECT_EQ(resolve_spec_path("./squad/vocab.txt", kBase), "/specs/examples/squad/vocab.txt");
  EXPECT_EQ(resolve_spec_path("../data/cifar", kBase), "/specs/data/cifar");
  EXPECT_EQ(resolve_spec_path("/data/cifar-10-batches-bin", kBase), "/data/cifar-10-batches-bin");
  EXPECT_EQ(resolve_spec_path("", kBase), "");
}

TEST(SpecPathsTest, ADataSetsPathAndItsFileOptionsResolve) {
  EXPECT_EQ(resolve_dataset_paths("squad:squad?stride=32&vocab=squad/vocab.txt", kBase),
            "squad:/specs/examples/squad?stride=32&vocab=/specs/examples/squad/vocab.txt");
  EXPECT_EQ(
      resolve_dataset_paths("squad/validation:train.json?dev=dev.json&vocab=/v/vocab.txt&max_length=128", kBase),
      "squad/validation:/specs/examples/train.json?dev=/specs/examples/dev.json&vocab=/v/vocab.txt&max_length=128");
  EXPECT_EQ(resolve_dataset_paths("cifar10/test:data", kBase), "cifar10/test:/specs/examples/data");
  // Absolute paths, a synthetic data set's shape, a default path and text that is no KIND:PATH stay.
  EXPECT_EQ(resolve_dataset_paths("fashion-mnist:/usr/share/datasets/fashion-mnist", kBase),
            "fashion-mnist:/usr/share/datasets/fashion-mnist");
  EXPECT_EQ(resolve_dataset_paths("synthetic:1x28x28?samples=2048&classes=10", kBase),
            "synthetic:1x28x28?samples=2048&classes=10");
  EXPECT_EQ(resolve_dataset_paths("fashion-mnist:", kBase), "fashion-mnist:");
  EXPECT_EQ(resolve_dataset_paths("no-kind", kBase), "no-kind");
  EXPECT_EQ(resolve_dataset_paths("", kBase), "");
}

TEST(SpecPathsTest, EveryPathOfASweepResolvesAndItsResultsFolderStays) {
  auto sweep = parse_sweep_spec(R"(name: "s"
board: "sim:boards/mine.manifest"
results: "results/s"
base {
  workload { model: "bert-tiny-qa" dataset: "squad:squad?vocab=squad/vocab.txt" batch_size: 1 pretrained: "bert" }
  measurement { meters { protocol: "ina" device: "ttyUSB0" } meters { protocol: "ina" device: "/dev/ttyACM0" } }
}
runs { workload { dataset: "cifar10:cifar" } }
runs { loader { workers: 2 } }
axes { field: "workload.dataset" values: ["\"textcls:glue\"", "'synthetic:3x8x8'"] }
axes { field: "workload.batch_size" values: ["1", "2"] }
kinds { name: "k" board: "sim:agx-orin-r36" axes { field: "workload.pretrained" values: ['"other"'] } }
)",
                                "s.textproto");
  PathChanges changes;
  resolve_spec_paths(sweep, kBase, &changes);
  EXPECT_EQ(sweep.board(), "sim:/specs/examples/boards/mine.manifest");
  EXPECT_EQ(sweep.results(), "results/s");
  EXPECT_EQ(sweep.base().workload().dataset(), "squad:/specs/examples/squad?vocab=/specs/examples/squad/vocab.txt");
  EXPECT_EQ(sweep.base().workload().pretrained(), "/specs/examples/bert");
  EXPECT_EQ(sweep.base().measurement().meters(0).device(), "/specs/examples/ttyUSB0");
  EXPECT_EQ(sweep.base().measurement().meters(1).device(), "/dev/ttyACM0");
  EXPECT_EQ(sweep.runs(0).workload().dataset(), "cifar10:/specs/examples/cifar");
  EXPECT_FALSE(sweep.runs(1).has_workload());  // a run without a workload gains none
  EXPECT_EQ(sweep.axes(0).values(0), "\"textcls:/specs/examples/glue\"");
  EXPECT_EQ(sweep.axes(0).values(1), "'synthetic:3x8x8'");
  EXPECT_EQ(sweep.axes(1).values(0), "1");
  EXPECT_EQ(sweep.kinds(0).board(), "sim:agx-orin-r36");  // a fixture's name
  EXPECT_EQ(sweep.kinds(0).axes(0).values(0), "\"/specs/examples/other\"");
  EXPECT_EQ(changes.size(), 7u);
  EXPECT_EQ(changes.at("cifar10:cifar"), "cifar10:/specs/examples/cifar");
}

TEST(SpecPathsTest, TheRewrittenTextKeepsCommentsAndLayoutAndReadsBackResolved) {
  const std::string text = R"(# squad: "squad:squad?vocab=squad/vocab.txt" stays in this comment
name: "squad"  # the name equals no path
base {
  workload {
    model: "bert-tiny-qa"
    dataset: "squad:squad"
             "?vocab=squad/vocab.txt"
    transform: 'squad'
    batch_size: 1
    learning_rate: 1.5e-3
  }
}
axes { field: "workload.pretrained" values: ['"squad"', "\"/abs\""] }
)";
  PathChanges changes;
  auto sweep = parse_sweep_spec(text, "s.textproto");
  resolve_spec_paths(sweep, kBase, &changes);
  const std::string rewritten = rewrite_spec_paths(text, changes);
  EXPECT_EQ(rewritten, R"(# squad: "squad:squad?vocab=squad/vocab.txt" stays in this comment
name: "squad"  # the name equals no path
base {
  workload {
    model: "bert-tiny-qa"
    dataset: "squad:/specs/examples/squad?vocab=/specs/examples/squad/vocab.txt"
    transform: 'squad'
    batch_size: 1
    learning_rate: 1.5e-3
  }
}
axes { field: "workload.pretrained" values: ["\"/specs/examples/squad\"", "\"/abs\""] }
)");
  auto again = parse_sweep_spec(rewritten, "copy.textproto");
  EXPECT_EQ(again.DebugString(), sweep.DebugString());
  // Resolved once, nothing is left to resolve.
  PathChanges none;
  resolve_spec_paths(again, "/elsewhere", &none);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(rewrite_spec_paths(text, {}), text);
}

TEST(SpecPathsTest, LoadingASpecFileResolvesFromItsFolderWhateverTheWorkingDirectory) {
  testing::TempDir dir;
  const fs::path spec = dir.write("specs/s.textproto", R"(name: "s"
base { workload { model: "m" dataset: "squad:data?vocab=data/vocab.txt" batch_size: 1 } }
)");
  const fs::path folder = fs::canonical(dir.path() / "specs");
  EXPECT_EQ(spec_folder(spec), folder);
  const auto before = fs::current_path();
  fs::current_path(dir.path());
  const auto sweep = load_sweep_spec("specs/s.textproto");
  const auto text = resolved_sweep_spec_text("specs/s.textproto");
  fs::current_path(before);
  const std::string dataset = "squad:" + (folder / "data").string() + "?vocab=" + (folder / "data/vocab.txt").string();
  EXPECT_EQ(sweep.base().workload().dataset(), dataset);
  EXPECT_NE(text.find("dataset: \"" + dataset + "\""), std::string::npos) << text;
  EXPECT_EQ(load_sweep_spec(spec).base().workload().dataset(), dataset);
}

}  // namespace
}  // namespace jetchar::sweeps
