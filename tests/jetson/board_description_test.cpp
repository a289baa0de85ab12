// Which board `jetchar device info` describes for --board and --root
// (jetson/board_description.h); the fixtures' descriptions themselves are held to golden
// files in board_info_test.cpp.
#include "jetson/board_description.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "jetson/simulated/simulated_board.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string description_error_of(std::string_view board, const std::optional<fs::path>& root) {
  try {
    describe_board(board, root);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(BoardDescription, AFixtureAloneIsExpandedAndMarkedSimulated) {
  const BoardDescription board = describe_board("sim:agx-orin-r36", std::nullopt);
  EXPECT_EQ(board.origin.board, "sim:agx-orin-r36");
  EXPECT_TRUE(board.origin.simulated);
  EXPECT_EQ(board.origin.fixture, "agx-orin-r36");
  EXPECT_FALSE(board.origin.root) << "a temporary copy has no root to name";
  EXPECT_EQ(board.info.identity.kind, BoardKind::kJetson);
}

TEST(BoardDescription, ADirectoryHoldingASimulatedBoardIsThatBoardWithOrWithoutItsName) {
  testing::TempDir dir;
  const fs::path root = dir.path() / "orin";
  { SimulatedBoard living("agx-orin-r36", root); }
  for (const char* board : {"auto", "sim:agx-orin-r36"}) {
    const BoardDescription described = describe_board(board, root);
    EXPECT_TRUE(described.origin.simulated) << board;
    EXPECT_EQ(described.origin.board, "sim:agx-orin-r36") << board;
    ASSERT_TRUE(described.origin.root) << board;
    EXPECT_EQ(fs::path(*described.origin.root), root) << board;
  }
}

TEST(BoardDescription, BadOptionsNameWhatIsValid) {
  EXPECT_THAT(description_error_of("jetsons", std::nullopt),
              HasSubstr("--board 'jetsons' is not valid; use auto, host, jetson"));
  EXPECT_THAT(description_error_of("sim:", std::nullopt), HasSubstr("--board sim: needs a fixture name"));
  testing::TempDir dir;
  std::ofstream(dir.path() / "board.manifest") << "# a fixture folder, not a board tree\n";
  EXPECT_THAT(description_error_of("auto", dir.path()),
              HasSubstr("is a board fixture (it holds board.manifest, not a board tree); use --board sim:"));
}

}  // namespace
}  // namespace jetchar::jetson
