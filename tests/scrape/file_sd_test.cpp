#include "scrape/file_sd.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace llmon::scrape {
namespace {

TEST(FileSd, ParsesJsonAndYamlGroups) {
  auto g = parse_file_sd(R"([{"targets": ["a:1", "b:2"], "labels": {"env": "prod"}}, {"targets": []}])", "/t/x.json");
  ASSERT_TRUE(g.has_value()) << g.error();
  ASSERT_EQ(g->size(), 2u);
  EXPECT_EQ((*g)[0].targets, (std::vector<std::string>{"a:1", "b:2"}));
  EXPECT_EQ((*g)[0].labels, (std::vector<model::Label>{{"env", "prod"}, {"__meta_filepath", "/t/x.json"}}));
  EXPECT_EQ((*g)[0].source, "/t/x.json:0");
  auto y = parse_file_sd("- targets: [c:3]\n", "/t/y.yml");
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(y->at(0).targets.at(0), "c:3");
}

TEST(FileSd, ErrorsNameFileAndLine) {
  auto e = parse_file_sd("- targets: [a:1]\n  lables: {}\n", "f.yml");
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error(), "f.yml:2: unknown field \"lables\" (targets, labels)");
  EXPECT_FALSE(parse_file_sd("{", "f.json").has_value());
  EXPECT_FALSE(parse_file_sd("- targets: [\"http://a/\"]\n", "f.yml").has_value());
}

TEST(FileSd, WatchesFilesThroughGlobs) {
  char tmpl[] = "/tmp/llmon-filesd-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir(tmpl);
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; };
  write("a.json", R"([{"targets": ["a:1"]}])");
  FileSd sd({FileSdConfig{{(dir / "*.json").string()}, 300000}});
  EXPECT_TRUE(sd.refresh(0));
  EXPECT_EQ(sd.groups().size(), 1u);
  EXPECT_FALSE(sd.refresh(1000));  // nothing changed
  write("b.json", R"([{"targets": ["b:1"]}])");
  EXPECT_TRUE(sd.refresh(2000));
  EXPECT_EQ(sd.groups().size(), 2u);
  // A broken file keeps its previous groups and reports the error.
  write("b.json", "[{");
  sd.refresh(3000);
  EXPECT_EQ(sd.groups().size(), 2u);
  ASSERT_EQ(sd.errors().size(), 1u);
  EXPECT_NE(sd.errors()[0].find("b.json"), std::string::npos);
  std::filesystem::remove(dir / "b.json");
  EXPECT_TRUE(sd.refresh(4000));
  EXPECT_EQ(sd.groups().size(), 1u);
  EXPECT_TRUE(sd.errors().empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace llmon::scrape
