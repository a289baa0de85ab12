#include "loaders/text/classification_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loaders/text/text_error.h"

namespace jetchar::loaders::text {
namespace {

using ::testing::HasSubstr;

void expect_error(std::string_view content, ClassificationFormat format, const std::string& part) {
  try {
    parse_classification(content, format, "f");
    FAIL() << "accepted: " << content;
  } catch (const TextFormatError& error) {
    EXPECT_THAT(error.what(), HasSubstr(part));
  }
}

TEST(ClassificationFileTest, ReadsGlueSst2AndMrpcTsv) {
  // GLUE SST-2 train.tsv: "sentence\tlabel"; quotes are text (GLUE reads with quotechar=None).
  const auto sst2 = parse_classification("sentence\tlabel\nhide new secretions \t0\n\"the greatest\" musicians \t1\r\n",
                                         ClassificationFormat::kTsv, "sst2");
  ASSERT_EQ(sst2.examples.size(), 2u);
  EXPECT_EQ(sst2.text_column, "sentence");
  EXPECT_FALSE(sst2.pair_column);
  EXPECT_EQ(sst2.examples[0].text, "hide new secretions ");
  EXPECT_EQ(sst2.examples[1].text, "\"the greatest\" musicians ");
  EXPECT_EQ(sst2.examples[1].label, "1");
  EXPECT_EQ(sst2.examples[1].line, 3u);
  // GLUE MRPC: Quality, #1 ID, #2 ID, #1 String, #2 String.
  const auto mrpc = parse_classification(
      "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t702876\t702977\tAmrozi accused his brother .\tReferring to him "
      ".\n",
      ClassificationFormat::kTsv, "mrpc");
  ASSERT_EQ(mrpc.examples.size(), 1u);
  EXPECT_EQ(mrpc.label_column, "Quality");
  EXPECT_EQ(mrpc.pair_column, "#2 String");
  EXPECT_EQ(mrpc.examples[0].text, "Amrozi accused his brother .");
  EXPECT_EQ(mrpc.examples[0].text_pair, "Referring to him .");
  // QNLI: question then sentence.
  const auto qnli = parse_classification("index\tquestion\tsentence\tlabel\n0\tWhy?\tBecause.\tentailment\n",
                                         ClassificationFormat::kTsv, "qnli");
  EXPECT_EQ(qnli.examples[0].text, "Why?");
  EXPECT_EQ(qnli.examples[0].text_pair, "Because.");
  EXPECT_EQ(qnli.examples[0].label, "entailment");
}

TEST(ClassificationFileTest, ReadsQuotedCsvAndHfJsonLines) {
  const auto csv = parse_classification("text,text_pair,label\n\"a, \"\"quoted\"\"\nline\",b,pos\n\nc,d,neg\n",
                                        ClassificationFormat::kCsv, "c");
  ASSERT_EQ(csv.examples.size(), 2u);
  EXPECT_EQ(csv.examples[0].text, "a, \"quoted\"\nline");
  EXPECT_EQ(csv.examples[0].text_pair, "b");
  EXPECT_EQ(csv.examples[1].line, 5u);
  // datasets' Dataset.to_json() of glue/sst2.
  const auto jsonl = parse_classification(
      "{\"sentence\":\"it 's a charming journey . "
      "\",\"label\":1,\"idx\":0}\n{\"sentence\":\"flat\",\"label\":0,\"idx\":1}\n",
      ClassificationFormat::kJsonl, "j");
  ASSERT_EQ(jsonl.examples.size(), 2u);
  EXPECT_EQ(jsonl.examples[0].label, "1");
  EXPECT_EQ(jsonl.examples[1].text, "flat");
}

TEST(ClassificationFileTest, MalformedInputIsAnErrorNamingTheLine) {
  expect_error("", ClassificationFormat::kTsv, "no header");
  expect_error("sentence\tscore\nx\t1\n", ClassificationFormat::kTsv, "no label column");
  expect_error("sentence\tlabel\nonly one field\n", ClassificationFormat::kTsv, "f:2: 1 fields");
  expect_error("text,label\n\"open,1\n", ClassificationFormat::kCsv, "f:2: a quoted field is not closed");
  expect_error("text,label\na\"b,1\n", ClassificationFormat::kCsv, "f:2: a quote inside an unquoted field");
  expect_error("text,label\nx,\n", ClassificationFormat::kCsv, "f:2: the label is empty");
  expect_error("{\"text\":\"a\",\"label\":1}\n[1]\n", ClassificationFormat::kJsonl, "f:2: a line is not a JSON object");
  expect_error("{\"text\":\"a\",\"label\":1.5}\n", ClassificationFormat::kJsonl, "a label is a string or an integer");
  expect_error("{\"text\":\"a\",\"label\":1}\n{\"label\":0}\n", ClassificationFormat::kJsonl, "f:2: no \"text\" field");
  expect_error("{\"text\":7,\"label\":1}\n", ClassificationFormat::kJsonl, "\"text\" is not a string");
  expect_error("text\tlabel\n\xff\t1\n", ClassificationFormat::kTsv, "f:2");
  EXPECT_THROW(classification_format("train.parquet"), std::invalid_argument);
  EXPECT_EQ(classification_format("dev.jsonl"), ClassificationFormat::kJsonl);
}

}  // namespace
}  // namespace jetchar::loaders::text
