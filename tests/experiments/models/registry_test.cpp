#include "experiments/models/registry.h"

#include <gtest/gtest.h>

#include <set>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {
namespace {

TEST(RegistryTest, NamesAreUniqueAndCoverTheStudyModels) {
  std::set<std::string> names;
  for (const auto& spec : model_registry()) EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
  for (const char* name : {"lenet5", "resnet18", "resnet18-cifar", "mobilenetv3-large", "mobilenetv3-small", "vgg11",
                           "vgg11-bn", "bert-tiny", "bert-base-ner", "bert-large-qa", "distilbert"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
}

TEST(RegistryTest, UnknownModelNamesTheValidOnes) {
  try {
    find_model("resnet19");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("resnet19"), std::string::npos);
    EXPECT_NE(message.find("lenet5"), std::string::npos);
  }
}

TEST(RegistryTest, BuildsWithDefaultAndChosenClasses) {
  const auto& spec = find_model("lenet5");
  EXPECT_EQ(parameter_count(*make_model(spec)), 61'706);
  EXPECT_EQ(parameter_count(*make_model(find_model("resnet18-cifar"))), 11'173'962);
  auto twenty = make_model(find_model("resnet18"), 20);
  EXPECT_EQ(parameter_count(*twenty), 11'689'512 - 980 * 513);
  EXPECT_THROW(make_model(spec, 0), std::invalid_argument);
}

TEST(RegistryTest, SyntheticBatchesFitEachTask) {
  for (const char* name : {"lenet5", "bert-tiny", "bert-tiny-ner", "bert-tiny-qa"}) {
    const auto& spec = find_model(name);
    std::vector<std::int64_t> input = spec.token_input() ? std::vector<std::int64_t>{16} : spec.default_input;
    auto batch = synthetic_batch(spec, 2, spec.default_classes, input, 7);
    auto model = make_model(spec);
    auto logits = model->forward_batch(batch);
    auto loss = task_loss(spec.task, logits, batch);
    EXPECT_TRUE(std::isfinite(loss.item<double>())) << name;
    auto again = synthetic_batch(spec, 2, spec.default_classes, input, 7);
    EXPECT_TRUE(torch::equal(batch.inputs, again.inputs)) << name << ": same seed, same batch";
  }
}

TEST(RegistryTest, MacsPerSampleAtDefaultInput) {
  EXPECT_EQ(macs_per_sample(find_model("lenet5")), 416'520);
  // BERT-tiny at 128 tokens, linear layers only: 128·2·(4·128² + 2·128·512) + pooler 128² + head 128·2.
  EXPECT_EQ(macs_per_sample(find_model("bert-tiny")), 128 * 2 * (4 * 128 * 128 + 2 * 128 * 512) + 128 * 128 + 256);
  EXPECT_EQ(find_model("bert-tiny").input_description(), "seq 128");
  EXPECT_EQ(find_model("resnet18").input_description(), "3x224x224");
}

// macs_per_sample counts from shapes (counted layers return zeros); running the layers gives the
// same count. Checked on a model of each family and head (VGG's layers are ResNet's and LeNet's
// kinds, and larger BERTs differ from bert-tiny only in sizes).
TEST(RegistryTest, CountingFromShapesMatchesRunningTheLayers) {
  torch::NoGradGuard no_grad;
  for (const char* name : {"lenet5", "resnet18", "resnet18-cifar", "resnet18-cifar-bn", "mobilenetv3-large",
                           "mobilenetv3-small", "bert-tiny", "bert-tiny-ner", "bert-tiny-qa"}) {
    const auto& spec = find_model(name);
    auto model = make_model(spec);
    const auto from_shapes = macs_per_sample(*model, spec, spec.default_input);
    model->eval();
    auto batch = synthetic_batch(spec, 1, spec.default_classes, spec.default_input);
    MacCountScope computing;
    model->forward_batch(batch);
    EXPECT_EQ(from_shapes, computing.macs()) << name;
  }
}

}  // namespace
}  // namespace jetchar::experiments
