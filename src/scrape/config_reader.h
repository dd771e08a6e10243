// The YAML readers the Prometheus-format configuration files share
// (--scrape.config, --remote-write.config): a base class holding the file
// name, an error context and the field readers, so every file reports
// problems the same way, "FILE:LINE:COLUMN: CONTEXT FIELD: what is wrong".
// Pure: it reads YAML nodes and never touches files; the credential and CA
// files a config names are read when they are used.
//
// Contract of every reader: on success it fills `out` and returns ok; on a
// wrong shape it returns fail() at the node's position, naming the field.
// A YAML null reads as the empty/default value where Prometheus's Go
// structs would leave the zero value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "scrape/relabel.h"
#include "scrape/scrape_config.h"

namespace YAML {
class Node;
}

namespace llmon::scrape {

class ConfigReader {
 public:
  explicit ConfigReader(std::string_view file) : file_(file) {}
  virtual ~ConfigReader() = default;
  ConfigReader(const ConfigReader&) = delete;
  ConfigReader& operator=(const ConfigReader&) = delete;

  // Parses `text` into `root`; a syntax error names FILE:LINE:COLUMN.
  Status load(std::string_view text, YAML::Node& root) const;

  // "FILE:LINE:COLUMN: " + context() + msg (no position for a node without one).
  Status fail(const YAML::Node& n, std::string_view msg) const;

  Status scalar(const YAML::Node& n, std::string_view field, std::string& out) const;
  // YAML 1.1 booleans as Go's yaml.v2 reads them.
  Status boolean(const YAML::Node& n, std::string_view field, bool& out) const;
  Status duration(const YAML::Node& n, std::string_view field, int64_t& out) const;
  Status uint(const YAML::Node& n, std::string_view field, uint64_t& out) const;
  Status strings(const YAML::Node& n, std::string_view field, std::vector<std::string>& out) const;
  // A mapping of strings to strings, in file order (names not checked).
  Status map_of_strings(const YAML::Node& n, std::string_view field,
                        std::vector<std::pair<std::string, std::string>>& out) const;

  // relabel_configs-style lists: every action of relabel.h, each rule
  // compiled (so a bad regex or a field its action forbids fails here).
  Status relabel(const YAML::Node& n, std::string_view field, std::vector<RelabelConfig>& out) const;
  // Prometheus's common HTTP client blocks, with its mutual-exclusion checks.
  Status basic_auth(const YAML::Node& n, BasicAuth& out) const;
  Status authorization(const YAML::Node& n, Authorization& out) const;
  Status tls_config(const YAML::Node& n, TlsConfig& out) const;

  // The refusal of a key no reader takes; each file names the keys
  // Prometheus knows and llmon does not take, so the error says why.
  virtual Status unknown(const YAML::Node& key, std::string_view where) const;

 protected:
  const std::string& file_name() const { return file_; }
  // Prefixed to every message, e.g. "scrape_configs[1] (job \"x\") ".
  std::string& context() { return ctx_; }

 private:
  std::string file_;
  std::string ctx_;
};

}  // namespace llmon::scrape
