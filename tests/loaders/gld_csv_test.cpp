#include "loaders/gld_csv.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "sysfs/error.h"

namespace jetchar::loaders {
namespace {

std::string gld_error_of(std::string_view text) {
  try {
    parse_gld_csv(text, "split.csv");
  } catch (const sysfs::FormatError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GldCsv, ParsesTheSplitCsvWithLineNumbers) {
  const auto records = parse_gld_csv("user_id,image_id,class\n7,abc123,5\r\n\n\"8\",\"def\",0\n", "t.csv");
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].user_id, "7");
  EXPECT_EQ(records[0].image_id, "abc123");
  EXPECT_EQ(records[0].class_id, 5);
  EXPECT_EQ(records[0].line, 2U);
  EXPECT_EQ(records[1].user_id, "8");
  EXPECT_EQ(records[1].image_id, "def");
  EXPECT_EQ(records[1].line, 4U) << "blank lines count";
}

TEST(GldCsv, HeaderInAnyOrderExtraColumnsBomAndQuotes) {
  const auto reordered = parse_gld_csv("class,image_id,user_id\n3,x,1\n", "t.csv");
  ASSERT_EQ(reordered.size(), 1U);
  EXPECT_EQ(reordered[0].class_id, 3);
  EXPECT_EQ(reordered[0].user_id, "1");
  const auto extra =
      parse_gld_csv("\xEF\xBB\xBFuser_id,note,image_id,class\n1,\"a, \"\"quoted\"\" note\",img,2\n", "t.csv");
  ASSERT_EQ(extra.size(), 1U);
  EXPECT_EQ(extra[0].image_id, "img");
  EXPECT_EQ(extra[0].class_id, 2);
  EXPECT_EQ(parse_gld_csv(" user_id , image_id , class \n 1 , x , 4 \n", "t.csv")[0].class_id, 4);
  EXPECT_TRUE(parse_gld_csv("user_id,image_id,class\n", "t.csv").empty());
}

TEST(GldCsv, MalformedLinesNameFileLineAndValue) {
  std::string error = gld_error_of("user,image,label\n1,a,2\n");
  EXPECT_NE(error.find("split.csv line 1"), std::string::npos) << error;
  EXPECT_NE(error.find("user_id,image_id,class"), std::string::npos) << error;
  error = gld_error_of("user_id,image_id,class\n1,a,2\n1,b\n");
  EXPECT_NE(error.find("split.csv line 3"), std::string::npos) << error;
  EXPECT_NE(error.find("'1,b'"), std::string::npos) << error;
  EXPECT_NE(error.find("3 comma-separated fields"), std::string::npos) << error;
  error = gld_error_of("user_id,image_id,class\n1,a,x\n");
  EXPECT_NE(error.find("split.csv line 2"), std::string::npos) << error;
  EXPECT_NE(error.find("'x'"), std::string::npos) << error;
  EXPECT_NE(error.find("integer 0..1000000"), std::string::npos) << error;
  EXPECT_NE(gld_error_of("user_id,image_id,class\n1,a,-1\n").find("'-1'"), std::string::npos);
  EXPECT_NE(gld_error_of("user_id,image_id,class\n1,a,2.5\n").find("'2.5'"), std::string::npos);
  EXPECT_NE(gld_error_of("user_id,image_id,class\n1,a,1000001\n").find("'1000001'"), std::string::npos);
  error = gld_error_of("user_id,image_id,class\n1,\"open,2\n");
  EXPECT_NE(error.find("split.csv line 2"), std::string::npos) << error;
  EXPECT_NE(error.find("closing quote"), std::string::npos) << error;
  EXPECT_NE(gld_error_of("").find("empty file"), std::string::npos);
  EXPECT_NE(gld_error_of("\n \n").find("empty file"), std::string::npos);
}

TEST(GldCsv, ImageIdsThatLeaveTheImageDirectoryAreRefused) {
  for (const char* id : {"../etc/passwd", "a/b", "..", ".", "\"\""}) {
    const std::string error = gld_error_of(std::string("user_id,image_id,class\n1,1,1\n2,") + id + ",1\n");
    EXPECT_NE(error.find("split.csv line 3"), std::string::npos) << id << ": " << error;
    EXPECT_NE(error.find("a file name without '/'"), std::string::npos) << id << ": " << error;
  }
}

}  // namespace
}  // namespace jetchar::loaders
