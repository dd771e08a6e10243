// Single-thread throughput of the logwatch Matcher (src/logwatch/matcher.h)
// over a log file, as the Processor runs it: matches_none() on every line,
// match() on the lines that match. Driven by bench/logwatch_match.sh, which
// compares it with GNU grep on the same file (docs/performance.md).
//
//   logwatch_match_bench --engine=hyperscan|re2 --patterns=FILE --log=FILE
//
// FILE of patterns: one RE2 pattern a line ("(?i)" inline for caseless).
// Prints: engine, patterns, fallback patterns, bytes, lines, matching lines,
// matching seconds and MiB/s (the file is read into memory first).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
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
  std::ifstream lf(log_file, std::ios::binary | std::ios::ate);
  std::string data(static_cast<size_t>(lf.tellg()), '\0');
  lf.seekg(0);
  lf.read(data.data(), static_cast<std::streamsize>(data.size()));
  auto m = Matcher::build(patterns, engine == "re2" ? MatchEngine::kRe2 : MatchEngine::kHyperscan);
  if (!m) {
    std::cerr << m.error() << "\n";
    return 1;
  }
  std::vector<Match> out;
  size_t lines = 0, matching = 0, matches = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t pos = 0; pos < data.size();) {
    size_t nl = data.find('\n', pos);
    if (nl == std::string::npos) nl = data.size();
    const std::string_view line(data.data() + pos, nl - pos);
    ++lines;
    if (!(*m)->matches_none(line)) {
      (*m)->match(line, out);
      ++matching;
      matches += out.size();
    }
    pos = nl + 1;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "engine=%s patterns=%zu fallback=%zu bytes=%zu lines=%zu matching_lines=%zu matches=%zu seconds=%.3f "
      "mib_s=%.1f\n",
      std::string((*m)->engine()).c_str(), (*m)->size(), (*m)->fallback_patterns(), data.size(), lines, matching,
      matches, s, static_cast<double>(data.size()) / (1024.0 * 1024.0) / s);
  return 0;
}
