// The small corpus the pretraining tests learn: four documents of three sentences over a
// 23-token vocab.txt, each repeated eight times, so that a masked word follows from its context.
#pragma once

#include <filesystem>
#include <string>

#include "tests/support/temp_dir.h"

namespace jetchar::testing {

/// Writes vocab.txt and corpus.txt into `dir`; returns corpus.txt's path.
inline std::filesystem::path write_repeated_corpus(const TempDir& dir) {
  dir.write("vocab.txt",
            "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\na\ncat\ndog\nbird\nsat\nran\nflew\non\nover\nunder\nmat\nhill\n"
            "tree\nred\nbig\nsmall\n.\n");
  const char* documents[] = {
      "the cat sat on the mat .\nthe big cat sat on a red mat .\na small cat sat under the tree .\n",
      "the dog ran over the hill .\nthe big dog ran under a red tree .\na small dog ran on the mat .\n",
      "the bird flew over the tree .\nthe small bird flew over a big hill .\na red bird flew under the tree .\n",
      "a cat ran over the mat .\na dog sat on the hill .\na bird sat on the tree .\n",
  };
  std::string text;
  for (int copy = 0; copy < 8; ++copy) {
    for (const char* document : documents) text += std::string(document) + "\n";
  }
  return dir.write("corpus.txt", text);
}

}  // namespace jetchar::testing
