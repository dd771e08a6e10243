// YAML as Prometheus reads rule files and promtool reads rule unit-test
// files: a document tree built from yaml-cpp's parser events, keeping what
// yaml-cpp's Node API loses (where every node and key starts, plain vs quoted
// scalars, the text of a null, aliases, duplicate keys), and a Decoder that
// walks it the way Go's gopkg.in/yaml decodes into structs (v3 for rule files,
// v2 with UnmarshalStrict for promtool test files), so messages are Go's:
// "field foo not found in type rulefmt.RuleGroup", "cannot unmarshal !!str
// `abc` into int", "mapping key "a" already defined at line 7".
//
// Differences from Go's yaml, by design: positions carry a column
// ("line 3:5: ..."); a custom unmarshaler's error (a bad duration) is
// collected with its position instead of aborting the decode; syntax error
// texts are yaml-cpp's. Input is checked first as Go's reader checks it
// (UTF-8, no control characters), since yaml-cpp silently drops those; only
// the first document is read. Aliases are shared, not copied, and the
// decoder stops on excessive aliasing with Go's budget.
//
// Pure functions on string_view; a Decoder is a single-use, single-thread
// object. Nothing throws out of this interface.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::rules::yaml {

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  enum class Kind { kNull, kScalar, kSequence, kMapping, kAlias };
  Kind kind = Kind::kNull;
  int line = 0;         // 1-based
  int column = 0;       // 1-based, in characters (as Go's yaml counts them)
  bool quoted = false;  // a non-plain scalar ('', "", | or >): always a string
  std::string tag;      // an explicit tag in short form ("!!str"), else empty
  std::string value;    // scalar text; a null's text as written ("~", "null", "")
  // Sequence items; mapping keys and values alternating; an alias's target.
  std::vector<NodePtr> items;
};

// The first document of `text` (nullptr when it is empty). Errors:
// "yaml: line L:C: message" (Go writes "yaml: line L: message").
Expected<NodePtr> parse(std::string_view text);

// Go's yaml tag of a scalar node: its explicit tag, "!!str" when quoted, else
// what a plain scalar resolves to ("!!null", "!!bool", "!!int", "!!float",
// "!!timestamp", "!!merge", "!!str"); "!!seq"/"!!map" for collections.
std::string resolved_tag(const Node& n, bool yaml11);

enum class Dialect {
  kV3,  // gopkg.in/yaml.v3 with KnownFields (Prometheus's rulefmt)
  kV2,  // gopkg.in/yaml.v2 UnmarshalStrict (promtool's unit-test files)
};

// One key/value of a decoded map[string]string, with where both were.
struct MapEntry {
  std::string key;
  std::string value;
  const Node* key_node = nullptr;
  const Node* value_node = nullptr;
};

class Decoder {
 public:
  explicit Decoder(Dialect dialect) : dialect_(dialect) {}

  // Go's collected type errors, "line L:C: message", in decoding order.
  const std::vector<std::string>& type_errors() const { return type_errors_; }
  // Errors Go would have stopped on (a duration that does not parse,
  // excessive aliasing): "L:C: message".
  const std::vector<std::string>& fatal_errors() const { return fatal_errors_; }
  bool ok() const { return type_errors_.empty() && fatal_errors_.empty(); }

  // Follows aliases to the node they name.
  static const Node& deref(const Node& n);
  bool is_null(const Node& n) const;

  // Decoding into Go types; each returns whether the target was set (false
  // for a null, or after recording an error).
  bool str(const Node& n, std::string& out);
  bool integer(const Node& n, int64_t& out);  // Go int
  bool float64(const Node& n, double& out);   // Go float64
  // prometheus/common model.Duration: a string parsed by ParseDuration.
  bool duration(const Node& n, int64_t& out_ms);
  // map[string]string, keys in file order (merge keys resolved).
  bool string_map(const Node& n, std::string_view go_type, std::vector<MapEntry>& out);
  // []string.
  bool string_list(const Node& n, std::vector<std::string>& out, std::vector<const Node*>* nodes = nullptr);
  // A struct with the given yaml field names: calls fn(field index, key
  // node, value node) for each known field; unknown fields are errors.
  bool structure(const Node& n, std::string_view go_type, const std::vector<std::string_view>& fields,
                 const std::function<void(size_t field, const Node& key, const Node& value)>& fn);
  // A slice: calls fn(item) for each item; v3 drops null items of struct
  // type as Go does (`drop_null_items`).
  bool sequence(const Node& n, std::string_view go_type, bool drop_null_items,
                const std::function<void(const Node& item)>& fn);

  void type_error(const Node& n, std::string_view go_type);
  void fatal(const Node& n, std::string_view message);

 private:
  bool visit(const Node& n);  // Go's decodeCount/aliasCount budget
  template <typename T, typename Convert>
  bool number(const Node& n, T& out, std::string_view go_type, Convert convert);
  // Everything decoded below an alias counts as aliased (Go's aliasDepth).
  struct AliasScope {
    AliasScope(Decoder& d, const Node& n) : d_(d), on_(n.kind == Node::Kind::kAlias) { d_.alias_depth_ += on_; }
    ~AliasScope() { d_.alias_depth_ -= on_; }
    Decoder& d_;
    int on_;
  };
  struct Pair {
    const Node* key;
    const Node* value;
  };
  bool pairs(const Node& map, std::vector<Pair>& out);
  std::optional<bool> mapping(const Node& at, std::string_view go_type, std::vector<Pair>& ps);
  bool unique_keys(const Node& map);

  Dialect dialect_;
  std::vector<std::string> type_errors_;
  std::vector<std::string> fatal_errors_;
  int64_t decode_count_ = 0;
  int64_t alias_count_ = 0;
  int alias_depth_ = 0;
  bool aborted_ = false;
};

// "line L:C" of a node, for messages.
std::string line_col(const Node& n);

}  // namespace llmon::rules::yaml
