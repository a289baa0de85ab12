// Which data set an inference run queries: the split its text names, else the validation split
// (SQuAD's dev file), a SQuAD file without "train" in its name itself; the sequence length sets
// the windows' max_length, and a model the samples do not fit is refused naming both.
#include "experiments/inference/inference_dataset.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

using nlohmann::json;

std::string squad_json(const std::string& question) {
  const std::string context = "The red fox jumps over the lazy dog.";
  const json qas = json::array({json{{"id", "q1"},
                                     {"question", question},
                                     {"answers", json::array({json{{"text", "red fox"}, {"answer_start", 4}}})}}});
  return json{
      {"version", "1.1"},
      {"data",
       json::array({json{{"title", "t"}, {"paragraphs", json::array({json{{"context", context}, {"qas", qas}}})}}})}}
      .dump();
}

class InferenceDatasetTest : public ::testing::Test {
 protected:
  InferenceDatasetTest() {
    dir_.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nred\nfox\njumps\nover\nlazy\ndog\nwhat\n?\n.\n");
    dir_.write("train-v1.1.json", squad_json("what jumps?"));
    dir_.write("dev-v1.1.json", squad_json("what jumps over the dog?"));
  }
  std::string at(const std::string& name) const { return (dir_.path() / name).string(); }
  std::string vocab() const { return "&vocab=" + at("vocab.txt"); }

  testing::TempDir dir_;
};

TEST_F(InferenceDatasetTest, TheValidationSplitUnlessTheTextNamesOneOrASquadFileItself) {
  EXPECT_EQ(inference_dataset_spec("squad:" + at(""), std::nullopt).split, "validation");
  EXPECT_EQ(inference_dataset_spec("squad:" + at("train-v1.1.json"), std::nullopt).split, "validation");
  EXPECT_EQ(inference_dataset_spec("squad/train:" + at(""), std::nullopt).split, "train");
  EXPECT_EQ(inference_dataset_spec("squad:" + at("dev-v1.1.json"), std::nullopt).split, "train");  // that file
  const auto& qa = find_model("bert-tiny-qa");
  const std::string windows = "?stride=4&max_query_length=8" + vocab();  // room in 32 positions
  for (const std::string& path : {at(""), at("train-v1.1.json"), at("dev-v1.1.json")}) {
    EXPECT_EQ(open_inference_dataset("squad:" + path + windows, qa, 32)->info().name, "dev-v1.1.json") << path;
  }
  EXPECT_EQ(open_inference_dataset("squad/train:" + at("") + windows, qa, 32)->info().name, "train-v1.1.json");
}

TEST_F(InferenceDatasetTest, TheSequenceLengthIsTheWindowsLength) {
  const auto spec = inference_dataset_spec("squad:" + at("") + "?stride=4&max_query_length=8" + vocab(), 32);
  EXPECT_EQ(spec.options.at("max_length"), "32");
  EXPECT_EQ(spec.options.at("stride"), "4");
  const auto dataset = open_inference_dataset("squad:" + at("") + "?stride=4&max_query_length=8" + vocab(),
                                              find_model("bert-tiny-qa"), 32);
  EXPECT_EQ(dataset->info().layout.input_shape, std::vector<std::int64_t>{32});
  EXPECT_EQ(inference_dataset_spec("squad:" + at("") + "?max_length=32", 32).options.at("max_length"), "32");
  try {
    (void)inference_dataset_spec("squad:" + at("") + "?max_length=64", 32);
    ADD_FAILURE() << "a different max_length was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "data set 'squad:" + at("") +
                                             "?max_length=64': ?max_length=64 differs from the sequence length 32; "
                                             "give one of them, or both the same");
  }
}

TEST_F(InferenceDatasetTest, AModelTheSamplesDoNotFitIsRefused) {
  try {
    (void)open_inference_dataset("squad:" + at("") + "?stride=4&max_query_length=8" + vocab(),
                                 find_model("bert-tiny-ner"), 32);
    ADD_FAILURE() << "bert-tiny-ner was given SQuAD windows";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("model bert-tiny-ner"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("does not fit data set dev-v1.1.json"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace jetchar::experiments
