// Standalone driver for the fuzz targets when libFuzzer is not in use (GCC
// builds, CI smoke run): feeds each file named on the command line (or every
// file of a directory), then `--mutations=N` deterministic mutations of each
// (bit flips, truncations, byte insertions, splices). A crash or sanitizer
// report fails the run. With clang, build with -DLLMON_FUZZ=ON for real
// coverage-guided fuzzing instead.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

uint64_t next(uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

void run(const std::string& in) { LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(in.data()), in.size()); }

}  // namespace

int main(int argc, char** argv) {
  long mutations = 2000;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--mutations=", 12) == 0) {
      mutations = std::strtol(argv[i] + 12, nullptr, 10);
      continue;
    }
    std::filesystem::path p(argv[i]);
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.push_back(p);
    }
    for (const auto& f : files) {
      std::ifstream is(f, std::ios::binary);
      std::stringstream ss;
      ss << is.rdbuf();
      inputs.push_back(ss.str());
    }
  }
  inputs.push_back("");
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  size_t runs = 0;
  for (const auto& base : inputs) {
    run(base);
    ++runs;
    for (long m = 0; m < mutations; ++m) {
      std::string s = base;
      int edits = 1 + static_cast<int>(next(seed) % 4);
      for (int e = 0; e < edits; ++e) {
        uint64_t r = next(seed);
        size_t pos = s.empty() ? 0 : r % (s.size() + 1);
        switch ((r >> 32) % 5) {
          case 0:
            if (!s.empty() && pos < s.size()) s[pos] = static_cast<char>(s[pos] ^ (1 << (r % 8)));
            break;
          case 1: s.resize(pos); break;
          case 2: s.insert(pos, 1, static_cast<char>(r >> 40)); break;
          case 3: {
            const std::string& other = inputs[r % inputs.size()];
            if (!other.empty()) {
              std::string piece = other.substr((r >> 20) % other.size(), 64);
              s = s.substr(0, pos) + piece + s.substr(pos);
            }
            break;
          }
          case 4: s.insert(pos, 1, (r >> 8) % 2 ? '\n' : ' '); break;
        }
      }
      run(s);
      ++runs;
    }
  }
  std::printf("fuzz smoke: %zu runs over %zu seed inputs, no crash\n", runs, inputs.size());
  return 0;
}
