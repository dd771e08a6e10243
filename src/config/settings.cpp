#include "config/settings.h"

#include <yaml-cpp/yaml.h>

#include <cassert>
#include <regex>

#include "base/file_reader.h"

namespace llmon::config {
namespace {

const char kDefaultOrigin[] = "default";

// f's entry in one of Settings' maps, which load() fills for every table row.
const std::string& entry(const std::map<std::string, std::string>& m, FlagRef f) {
  static const std::string kEmpty;
  auto it = m.find(std::string(f.name));
  assert(it != m.end() && "a Flag that is not in the flag table");
  return it == m.end() ? kEmpty : it->second;
}

void flatten(const YAML::Node& node, const std::string& prefix, std::string_view file,
             std::map<std::string, std::pair<std::string, int>>& out, Status& err) {
  if (!err.is_ok()) return;
  if (node.IsMap()) {
    for (const auto& kv : node) {
      std::string key = kv.first.as<std::string>();
      flatten(kv.second, prefix.empty() ? key : prefix + "." + key, file, out, err);
    }
    return;
  }
  int line = node.Mark().line + 1;
  if (node.IsScalar()) {
    out[prefix] = {node.Scalar(), line};
    return;
  }
  if (node.IsNull()) {
    out[prefix] = {"", line};
    return;
  }
  if (const FlagSpec* f = find_flag(prefix); f && f->repeatable && node.IsSequence()) {
    std::string joined;
    for (const auto& item : node) {
      if (!item.IsScalar()) {
        err = Status::error(std::string(file) + ":" + std::to_string(item.Mark().line + 1) + ": \"" + prefix +
                            "\" must be a list of values");
        return;
      }
      joined += (joined.empty() ? "" : ",") + item.Scalar();
    }
    out[prefix] = {joined, line};
    return;
  }
  err = Status::error(std::string(file) + ":" + std::to_string(line) + ": \"" + prefix +
                      "\" must be a single value, not a list");
}

Status check_value(const FlagSpec& f, const std::string& v, const std::string& where) {
  Status s;
  switch (f.kind) {
    case FlagKind::kBool: {
      auto b = parse_bool(v);
      if (!b) s = b.status();
      break;
    }
    case FlagKind::kDuration: {
      auto d = parse_duration_ms(v);
      if (!d) s = d.status();
      break;
    }
    case FlagKind::kInt: {
      try {
        size_t pos = 0;
        (void)std::stoll(v, &pos);
        if (pos != v.size()) s = Status::error("invalid integer \"" + v + "\"");
      } catch (...) {
        s = Status::error("invalid integer \"" + v + "\"");
      }
      break;
    }
    case FlagKind::kRegex:
      try {
        std::regex re(v, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        s = Status::error("invalid regexp \"" + v + "\": " + e.what());
      }
      break;
    case FlagKind::kBytes: {
      auto b = parse_bytes(v);
      if (!b) s = b.status();
      break;
    }
    case FlagKind::kString: break;
  }
  return s.with_context(where + ": --" + f.name);
}

}  // namespace

const std::string& Settings::raw(FlagRef f) const { return entry(values_, f); }

const std::string& Settings::get(StringFlag f) const { return raw(f); }

const std::string& Settings::get(RegexFlag f) const { return raw(f); }

bool Settings::get(BoolFlag f) const {
  auto b = parse_bool(raw(f));
  return b && *b;
}

int64_t Settings::get(DurationFlag f) const {
  auto d = parse_duration_ms(raw(f));
  return d ? *d : 0;
}

uint64_t Settings::get(BytesFlag f) const {
  auto b = parse_bytes(raw(f));
  return b ? *b : 0;
}

int64_t Settings::get(IntFlag f) const {
  try {
    return std::stoll(raw(f));
  } catch (...) {
    return 0;
  }
}

const std::string& Settings::origin_of(FlagRef f) const { return entry(origin_, f); }

bool Settings::is_default(FlagRef f) const { return origin_of(f) == kDefaultOrigin; }

void Settings::replace_default(FlagRef f, std::string value) {
  if (is_default(f)) values_[std::string(f.name)] = std::move(value);
}

Expected<std::map<std::string, std::pair<std::string, int>>> parse_config_yaml(std::string_view text,
                                                                                  std::string_view file) {
  std::map<std::string, std::pair<std::string, int>> out;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Status::error(std::string(file) + ":" + std::to_string(e.mark.line + 1) + ":" +
                         std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (root.IsNull()) return out;
  if (!root.IsMap()) return Status::error(std::string(file) + ":1: the config file must be a YAML map");
  Status err;
  try {
    flatten(root, "", file, out, err);
  } catch (const YAML::Exception& e) {
    return Status::error(std::string(file) + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!err) return err;
  return out;
}

Expected<Settings> load(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  Settings s;
  for (const auto& f : flag_table()) {
    s.values_[f.name] = f.default_value;
    s.origin_[f.name] = kDefaultOrigin;
  }
  // First pass over the command line: subcommand, flags, positionals.
  std::map<std::string, std::string> cli;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      if (s.command.empty())
        s.command = a;
      else
        s.positional.push_back(a);
      continue;
    }
    std::string body = a.substr(2), value;
    bool has_value = false;
    if (auto eq = body.find('='); eq != std::string::npos) {
      value = body.substr(eq + 1);
      body = body.substr(0, eq);
      has_value = true;
    }
    const FlagSpec* f = find_flag(body);
    if (!f && body.rfind("no-", 0) == 0) {
      const FlagSpec* neg = find_flag(body.substr(3));
      if (neg && neg->kind == FlagKind::kBool && !has_value) {
        cli[neg->name] = "false";
        continue;
      }
    }
    if (!f) return Status::error("unknown flag --" + body + " (see llmon help)");
    if (!has_value) {
      if (f->kind == FlagKind::kBool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return Status::error("flag --" + body + " needs a value");
      }
    }
    if (auto it = cli.find(f->name); f->repeatable && it != cli.end())
      it->second += "," + value;
    else
      cli[f->name] = value;
  }
  // Config file (its path may itself come from env or the command line).
  std::string cfg_path;
  const std::string cfg_flag(flag::kConfigFile.name), cfg_env = env_name(cfg_flag) + "=";
  for (const auto& e : env)
    if (e.rfind(cfg_env, 0) == 0) cfg_path = e.substr(cfg_env.size());
  if (auto it = cli.find(cfg_flag); it != cli.end()) cfg_path = it->second;
  if (!cfg_path.empty()) {
    auto text = base::read_file(cfg_path);
    if (!text) return text.status().with_context("--" + cfg_flag);
    auto kv = parse_config_yaml(*text, cfg_path);
    if (!kv) return kv.status();
    for (const auto& [k, vl] : *kv) {
      const FlagSpec* f = find_flag(k);
      std::string where = cfg_path + ":" + std::to_string(vl.second);
      if (!f) return Status::error(where + ": unknown setting \"" + k + "\"");
      Status c = check_value(*f, vl.first, where);
      if (!c) return c;
      s.values_[f->name] = vl.first;
      s.origin_[f->name] = where;
    }
  }
  for (const auto& e : env) {
    if (e.rfind("LLMON_", 0) != 0) continue;
    auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    std::string var = e.substr(0, eq);
    for (const auto& f : flag_table()) {
      if (env_name(f.name) != var) continue;
      Status c = check_value(f, e.substr(eq + 1), "environment " + var);
      if (!c) return c;
      s.values_[f.name] = e.substr(eq + 1);
      s.origin_[f.name] = "env " + var;
    }
  }
  for (const auto& [k, v] : cli) {
    Status c = check_value(*find_flag(k), v, "command line");
    if (!c) return c;
    s.values_[k] = v;
    s.origin_[k] = "flag";
  }
  return s;
}

}  // namespace llmon::config
