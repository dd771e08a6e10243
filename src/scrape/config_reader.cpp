#include "scrape/config_reader.h"

#include <yaml-cpp/yaml.h>

#include "base/strings.h"
#include "model/metric.h"

namespace llmon::scrape {
namespace {

std::string position(std::string_view file, const YAML::Mark& m) {
  std::string out(file);
  if (!m.is_null()) out += ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  return out;
}

}  // namespace

Status ConfigReader::load(std::string_view text, YAML::Node& root) const {
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Status::error(position(file_, e.mark) + ": " + e.msg);
  }
  return Status::ok();
}

Status ConfigReader::fail(const YAML::Node& n, std::string_view msg) const {
  std::string out = position(file_, n.Mark());
  out += ": ";
  out += ctx_;
  out += msg;
  return Status::error(out);
}

Status ConfigReader::scalar(const YAML::Node& n, std::string_view field, std::string& out) const {
  if (n.IsNull()) {
    out.clear();
    return Status::ok();
  }
  if (!n.IsScalar()) return fail(n, std::string(field) + ": expected a string");
  out = n.Scalar();
  return Status::ok();
}

Status ConfigReader::boolean(const YAML::Node& n, std::string_view field, bool& out) const {
  auto b = n.IsScalar() ? base::parse_bool_word(n.Scalar()) : std::nullopt;
  if (!b) return fail(n, std::string(field) + ": expected true or false");
  out = *b;
  return Status::ok();
}

Status ConfigReader::duration(const YAML::Node& n, std::string_view field, int64_t& out) const {
  if (!n.IsScalar()) return fail(n, std::string(field) + ": expected a duration such as 15s");
  auto d = base::parse_duration_ms(n.Scalar());
  if (!d) return fail(n, std::string(field) + ": " + d.error());
  out = *d;
  return Status::ok();
}

Status ConfigReader::uint(const YAML::Node& n, std::string_view field, uint64_t& out) const {
  auto i = n.IsScalar() ? base::parse_i64(n.Scalar()) : std::nullopt;
  if (!i || *i < 0) return fail(n, std::string(field) + ": expected a non-negative integer");
  out = static_cast<uint64_t>(*i);
  return Status::ok();
}

Status ConfigReader::strings(const YAML::Node& n, std::string_view field, std::vector<std::string>& out) const {
  out.clear();
  if (n.IsNull()) return Status::ok();
  if (!n.IsSequence()) return fail(n, std::string(field) + ": expected a list of strings");
  for (const auto& item : n) {
    if (!item.IsScalar()) return fail(item, std::string(field) + ": expected a string");
    out.push_back(item.Scalar());
  }
  return Status::ok();
}

Status ConfigReader::map_of_strings(const YAML::Node& n, std::string_view field,
                                    std::vector<std::pair<std::string, std::string>>& out) const {
  out.clear();
  if (n.IsNull()) return Status::ok();
  if (!n.IsMap()) return fail(n, std::string(field) + ": expected a mapping");
  for (const auto& kv : n) {
    std::string v;
    if (Status s = scalar(kv.second, std::string(field) + "." + kv.first.Scalar(), v); !s) return s;
    out.emplace_back(kv.first.Scalar(), v);
  }
  return Status::ok();
}

Status ConfigReader::relabel(const YAML::Node& n, std::string_view field, std::vector<RelabelConfig>& out) const {
  out.clear();
  if (n.IsNull()) return Status::ok();
  if (!n.IsSequence()) return fail(n, std::string(field) + ": expected a list of relabel rules");
  size_t idx = 0;
  for (const auto& item : n) {
    const std::string where = std::string(field) + "[" + std::to_string(idx++) + "]";
    if (!item.IsMap()) return fail(item, where + ": expected a mapping");
    RelabelConfig rc;
    for (const auto& kv : item) {
      const std::string& key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      Status s;
      if (key == "source_labels") {
        // Present even as [] matters: labeldrop/labelkeep refuse it.
        rc.set_source_labels = true;
        s = strings(v, where + ".source_labels", rc.source_labels);
        for (const auto& l : rc.source_labels)
          if (s && !model::is_valid_label_name(l))
            s = fail(v, where + ".source_labels: \"" + l + "\" is not a valid label name");
      } else if (key == "separator") {
        s = scalar(v, where + ".separator", rc.separator);
      } else if (key == "regex") {
        rc.set_regex = true;  // keepequal/dropequal refuse it, even written as the default
        s = scalar(v, where + ".regex", rc.regex);
      } else if (key == "modulus") {
        s = uint(v, where + ".modulus", rc.modulus);
      } else if (key == "target_label") {
        s = scalar(v, where + ".target_label", rc.target_label);
      } else if (key == "replacement") {
        s = scalar(v, where + ".replacement", rc.replacement);
      } else if (key == "action") {
        std::string a;
        s = scalar(v, where + ".action", a);
        auto action = parse_relabel_action(a);
        if (s && !action) s = fail(v, where + ".action: " + unknown_relabel_action_message(a));
        if (s) rc.action = *action;
      } else {
        s = unknown(kv.first, where);
      }
      if (!s) return s;
    }
    auto compiled = Relabeler::compile({rc});
    if (!compiled) {
      std::string msg = compiled.error();
      if (msg.rfind("rule 1: ", 0) == 0) msg.erase(0, 8);
      return fail(item, where + ": " + msg);
    }
    out.push_back(std::move(rc));
  }
  return Status::ok();
}

Status ConfigReader::basic_auth(const YAML::Node& n, BasicAuth& out) const {
  if (!n.IsMap()) return fail(n, "basic_auth: expected a mapping");
  for (const auto& kv : n) {
    const std::string& key = kv.first.Scalar();
    Status s;
    if (key == "username")
      s = scalar(kv.second, "basic_auth.username", out.username);
    else if (key == "password")
      s = scalar(kv.second, "basic_auth.password", out.password);
    else if (key == "password_file")
      s = scalar(kv.second, "basic_auth.password_file", out.password_file);
    else
      s = unknown(kv.first, "basic_auth");
    if (!s) return s;
  }
  if (!out.password.empty() && !out.password_file.empty())
    return fail(n, "at most one of basic_auth password & password_file must be configured");
  return Status::ok();
}

Status ConfigReader::authorization(const YAML::Node& n, Authorization& out) const {
  if (!n.IsMap()) return fail(n, "authorization: expected a mapping");
  for (const auto& kv : n) {
    const std::string& key = kv.first.Scalar();
    Status s;
    if (key == "type")
      s = scalar(kv.second, "authorization.type", out.type);
    else if (key == "credentials")
      s = scalar(kv.second, "authorization.credentials", out.credentials);
    else if (key == "credentials_file")
      s = scalar(kv.second, "authorization.credentials_file", out.credentials_file);
    else
      s = unknown(kv.first, "authorization");
    if (!s) return s;
  }
  if (out.type.empty()) out.type = "Bearer";
  if (base::iequals(out.type, "basic"))
    return fail(n, "authorization type cannot be set to \"basic\", use \"basic_auth\" instead");
  if (!out.credentials.empty() && !out.credentials_file.empty())
    return fail(n, "at most one of authorization credentials & credentials_file must be configured");
  return Status::ok();
}

Status ConfigReader::tls_config(const YAML::Node& n, TlsConfig& out) const {
  if (!n.IsMap()) return fail(n, "tls_config: expected a mapping");
  for (const auto& kv : n) {
    const std::string& key = kv.first.Scalar();
    Status s;
    if (key == "ca_file")
      s = scalar(kv.second, "tls_config.ca_file", out.ca_file);
    else if (key == "cert_file")
      s = scalar(kv.second, "tls_config.cert_file", out.cert_file);
    else if (key == "key_file")
      s = scalar(kv.second, "tls_config.key_file", out.key_file);
    else if (key == "server_name")
      s = scalar(kv.second, "tls_config.server_name", out.server_name);
    else if (key == "insecure_skip_verify")
      s = boolean(kv.second, "tls_config.insecure_skip_verify", out.insecure_skip_verify);
    else
      s = unknown(kv.first, "tls_config");
    if (!s) return s;
  }
  if (out.cert_file.empty() != out.key_file.empty())
    return fail(n, out.cert_file.empty() ? "client key file specified without client cert file"
                                         : "client cert file specified without client key file");
  return Status::ok();
}

Status ConfigReader::unknown(const YAML::Node& key, std::string_view where) const {
  return fail(key, std::string(where) + ": unknown field \"" + key.Scalar() + "\"");
}

}  // namespace llmon::scrape
