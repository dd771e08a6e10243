// Single-thread throughput of the logwatch Matcher (src/logwatch/matcher.h)
// over a log file, as the Processor runs it: matches_none() on every line,
// match() on the lines that match. Driven by bench/logwatch_match.sh, which
// compares it with GNU grep on the same file (docs/performance.md).
//
//   logwatch_match_bench --engine=hyperscan|re2 --patterns=FILE --log=FILE
//
// FILE of patterns: one RE2 pattern a line ("(?i)" inline for caseless).
// Prints: engine, patterns, fallback patterns, bytes, lines, matching lines,
// the seconds and MiB/s of reading and matching (building the matcher apart).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "logwatch/matcher.h"

using llmon::logwatch::Match;
using llmon::logwatch::MatchEngine;
using llmon::logwatch::Matcher;
using llmon::logwatch::Pattern;

namespace {

std::string arg(int argc, char** argv, const std::string& name) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return argv[i] + prefix.size();
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string engine = arg(argc, argv, "engine"), pattern_file = arg(argc, argv, "patterns"),
                    log_file = arg(argc, argv, "log");
  if (engine.empty() || pattern_file.empty() || log_file.empty()) {
    std::cerr << "usage: logwatch_match_bench --engine=hyperscan|re2 --patterns=FILE --log=FILE\n";
    return 2;
  }
  std::vector<Pattern> patterns;
  std::ifstream pf(pattern_file);
  for (std::string line; std::getline(pf, line);)
    if (!line.empty()) patterns.push_back({line});
  // Read in 1 MiB blocks and split into lines, as the tailer does; the
  // timing covers reading and matching, not building the matcher.
  const auto b0 = std::chrono::steady_clock::now();
  auto m = Matcher::build(patterns, engine == "re2" ? MatchEngine::kRe2 : MatchEngine::kHyperscan);
  if (!m) {
    std::cerr << m.error() << "\n";
    return 1;
  }
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
  std::FILE* f = std::fopen(log_file.c_str(), "rb");
  if (f == nullptr) {
    std::perror(log_file.c_str());
    return 1;
  }
  std::vector<Match> out;
  size_t bytes = 0, lines = 0, matching = 0, matches = 0;
  std::string buf(1 << 20, '\0'), carry;
  auto one = [&](std::string_view line) {
    ++lines;
    if (!(*m)->matches_none(line)) {
      (*m)->match(line, out);
      ++matching;
      matches += out.size();
    }
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), f)) > 0;) {
    bytes += n;
    const std::string_view block(buf.data(), n);
    size_t pos = 0;
    for (size_t nl; (nl = block.find('\n', pos)) != std::string_view::npos; pos = nl + 1) {
      if (!carry.empty()) {
        carry.append(block.substr(pos, nl - pos));
        one(carry);
        carry.clear();
      } else {
        one(block.substr(pos, nl - pos));
      }
    }
    carry.append(block.substr(pos));
  }
  if (!carry.empty()) one(carry);
  std::fclose(f);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "engine=%s patterns=%zu fallback=%zu build_s=%.3f bytes=%zu lines=%zu matching_lines=%zu matches=%zu "
      "seconds=%.3f mib_s=%.1f\n",
      std::string((*m)->engine()).c_str(), (*m)->size(), (*m)->fallback_patterns(), build_s, bytes, lines, matching,
      matches, s, static_cast<double>(bytes) / (1024.0 * 1024.0) / s);
  return 0;
}
