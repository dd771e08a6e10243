// packaging/llmon.yml (the Debian package's /etc/llmon/llmon.yml) is
// generated from the flag table by `llmon help --config-yaml`; this fails
// when it is stale (LLMON_UPDATE_GOLDEN=1 rewrites it). The file must load
// as it is shipped (all commented out) and with every line uncommented: then
// each agent flag is set from the file, to its own default.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/commands.h"
#include "config/settings.h"
#include "support/test_paths.h"

namespace llmon::app {
namespace {

std::string generated_yaml() {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  write_config_yaml(mem);
  std::fclose(mem);
  std::string out(buf, len);
  std::free(buf);
  return out;
}

TEST(ConfigYaml, PackagingLlmonYmlMatchesFlagTable) {
  const std::string generated = generated_yaml();
  const std::string path = llmon::testing::source_dir() + "/packaging/llmon.yml";
  if (llmon::testing::update_golden()) std::ofstream(path) << generated;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), generated)
      << "packaging/llmon.yml is stale: build/llmon help --config-yaml > packaging/llmon.yml";
}

// A directory removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "llmon-config-yaml-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ConfigYaml, LoadsAsShippedAndWithEveryOptionUncommented) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string shipped = generated_yaml();
  std::ofstream(dir.path() + "/shipped.yml") << shipped;
  auto s = config::load({"agent", "--config.file=" + dir.path() + "/shipped.yml"}, {});
  ASSERT_TRUE(s) << s.error();

  // Uncomment "# name: value" lines (not the prose above them).
  std::stringstream in(shipped), out;
  std::string line;
  size_t options = 0;
  while (std::getline(in, line)) {
    const size_t colon = line.find(": ");
    const bool option = line.rfind("# ", 0) == 0 && colon != std::string::npos && line.find(' ', 2) == colon + 1 &&
                        config::find_flag(line.substr(2, colon - 2)) != nullptr;
    if (option) ++options;
    out << (option ? line.substr(2) : line) << "\n";
  }
  ASSERT_GT(options, 100u);
  std::ofstream(dir.path() + "/all.yml") << out.str();
  auto all = config::load({"agent", "--config.file=" + dir.path() + "/all.yml"}, {});
  ASSERT_TRUE(all) << all.error();
  size_t from_file = 0;
  for (const auto& f : config::flag_table()) {
    config::FlagRef ref{f.name, f.kind};
    if (all->origin_of(ref).rfind(dir.path() + "/all.yml:", 0) != 0) continue;
    ++from_file;
    EXPECT_EQ(all->raw(ref), s->raw(ref)) << f.name << ": the file's value differs from the default";
  }
  EXPECT_EQ(from_file, options);
}

}  // namespace
}  // namespace llmon::app
