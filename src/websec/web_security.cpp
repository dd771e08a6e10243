// See web_security.h; the format is web_config.h's, the TLS side OpenSSL 3.
#include "websec/web_security.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "net/tls_context.h"
#include "websec/basic_auth.h"
#include "websec/roles.h"
#include "websec/web_config.h"

namespace llmon::websec {

namespace {

struct FileStamp {
  std::string path;
  int64_t mtime_ns = 0;
  int64_t size = -1;
  uint64_t inode = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp stamp(const std::string& path) {
  FileStamp s{path};
  struct stat st {};
  if (!path.empty() && ::stat(path.c_str(), &st) == 0) {
    s.mtime_ns = int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    s.size = st.st_size;
    s.inode = st.st_ino;
  }
  return s;
}

struct CtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};

int accept_any(int, X509_STORE_CTX*) {
  return 1;
}

Expected<std::shared_ptr<SSL_CTX>> build_ctx(const TlsServerConfig& t) {
  ERR_clear_error();
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), CtxFree{});
  if (!ctx) return Status::error("creating the TLS context: " + net::openssl_errors());
  SSL_CTX* c = ctx.get();
  SSL_CTX_set_min_proto_version(c, t.min_version);
  SSL_CTX_set_max_proto_version(c, t.max_version);
  SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(c, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  if (t.prefer_server_cipher_suites) SSL_CTX_set_options(c, SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate_chain_file(c, t.cert_file.c_str()) != 1)
    return Status::error("loading cert_file " + t.cert_file + ": " + net::openssl_errors());
  if (SSL_CTX_use_PrivateKey_file(c, t.key_file.c_str(), SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(c) != 1)
    return Status::error("loading key_file " + t.key_file + ": " + net::openssl_errors());
  // TLS 1.2 suites by their IANA names (Go's); TLS 1.3 ones are not configurable in Go either.
  std::string list;
  if (!t.cipher_suites.empty()) {
    STACK_OF(SSL_CIPHER)* all = SSL_CTX_get_ciphers(c);
    for (const std::string& want : t.cipher_suites) {
      if (tls13_cipher_suite(want)) continue;
      for (int i = 0; i < sk_SSL_CIPHER_num(all); ++i) {
        const SSL_CIPHER* ci = sk_SSL_CIPHER_value(all, i);
        if (want == SSL_CIPHER_standard_name(ci))
          list += (list.empty() ? "" : ":") + std::string(SSL_CIPHER_get_name(ci));
      }
    }
    if (!list.empty() && SSL_CTX_set_cipher_list(c, list.c_str()) != 1)
      return Status::error("cipher_suites: " + net::openssl_errors());
  }
  if (!t.curve_preferences.empty()) {
    std::string groups;
    for (const std::string& g : t.curve_preferences)
      groups += (groups.empty() ? "" : ":") + std::string(g == "CurveP256"   ? "P-256"
                                                          : g == "CurveP384" ? "P-384"
                                                          : g == "CurveP521" ? "P-521"
                                                                             : "X25519");
    if (SSL_CTX_set1_groups_list(c, groups.c_str()) != 1)
      return Status::error("curve_preferences: " + net::openssl_errors());
  }
  if (!t.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(c, t.client_ca_file.c_str(), nullptr) != 1)
      return Status::error("loading client_ca_file " + t.client_ca_file + ": " + net::openssl_errors());
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(t.client_ca_file.c_str());
    if (names) SSL_CTX_set_client_CA_list(c, names);
  } else if (t.client_auth != ClientAuth::kNoClientCert) {
    SSL_CTX_set_default_verify_paths(c);
  }
  switch (t.client_auth) {
    case ClientAuth::kNoClientCert:
      SSL_CTX_set_verify(c, SSL_VERIFY_NONE, nullptr);
      break;
    case ClientAuth::kRequestClientCert:
      SSL_CTX_set_verify(c, SSL_VERIFY_PEER, accept_any);
      break;
    case ClientAuth::kRequireAnyClientCert:
      SSL_CTX_set_verify(c, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any);
      break;
    case ClientAuth::kVerifyClientCertIfGiven:
      SSL_CTX_set_verify(c, SSL_VERIFY_PEER, nullptr);
      break;
    case ClientAuth::kRequireAndVerifyClientCert:
      SSL_CTX_set_verify(c, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }
  static const unsigned char kSid[] = "llmon";
  SSL_CTX_set_session_id_context(c, kSid, sizeof kSid - 1);
  return ctx;
}

Expected<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error("cannot read web config " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

struct WebSecurity::State {
  WebConfig config;
  std::vector<FileStamp> stamps;
  std::shared_ptr<SSL_CTX> ctx;  // null without TLS
  std::shared_ptr<BasicAuthVerifier> auth;
};

namespace {

class TlsConnection final : public http::Connection {
 public:
  TlsConnection(SSL* ssl, int fd, int wake_fd) : ssl_(ssl), fd_(fd), wake_fd_(wake_fd) {}
  ~TlsConnection() override {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
  bool plain() const override { return false; }

  // One SSL_* call driven to completion on the non-blocking fd.
  template <typename F>
  int drive(F op, int64_t deadline_ms) {
    for (;;) {
      ERR_clear_error();
      int r = op();
      if (r > 0) return r;
      int e = SSL_get_error(ssl_, r);
      if (e == SSL_ERROR_WANT_READ) {
        if (!http::wait_fd(fd_, wake_fd_, deadline_ms)) return -1;
      } else if (e == SSL_ERROR_WANT_WRITE) {
        if (!http::wait_fd(fd_, wake_fd_, deadline_ms, 0x004 /*POLLOUT*/)) return -1;
      } else {
        return 0;
      }
    }
  }

  long read(char* buf, size_t n, int64_t deadline_ms) override {
    size_t got = 0;
    int r = drive(
        [&] {
          int ok = SSL_read_ex(ssl_, buf, n, &got);
          return ok == 1 ? 1 : ok;
        },
        deadline_ms);
    return r > 0 ? static_cast<long>(got) : r;
  }

  bool write(const std::string& head, const std::string* body) override {
    const int64_t deadline = http::steady_now_ms() + 60'000;
    auto put = [&](const char* p, size_t len) {
      while (len > 0) {
        size_t w = 0;
        if (drive([&] { return SSL_write_ex(ssl_, p, len, &w); }, deadline) <= 0) return false;
        p += w;
        len -= w;
      }
      return true;
    };
    if (body && body->size() <= 16 * 1024) {
      std::string one = head + *body;  // one record for small answers
      return put(one.data(), one.size());
    }
    return put(head.data(), head.size()) && (!body || put(body->data(), body->size()));
  }

 private:
  SSL* ssl_;
  int fd_;
  int wake_fd_;
};

class TlsTransport final : public http::Transport {
 public:
  TlsTransport(std::weak_ptr<WebSecurity> sec, base::Logger& log) : sec_(std::move(sec)), log_(log) {}
  bool plain() const override { return false; }

  std::unique_ptr<http::Connection> open(int fd, int wake_fd, int64_t deadline_ms) override {
    auto sec = sec_.lock();
    if (!sec) return nullptr;
    auto state = sec->current();
    if (!state->ctx) return nullptr;
    int flags = ::fcntl(fd, F_GETFL, 0);
    ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    SSL* ssl = SSL_new(state->ctx.get());
    if (!ssl) return nullptr;
    SSL_set_fd(ssl, fd);
    auto conn = std::make_unique<TlsConnection>(ssl, fd, wake_fd);
    if (conn->drive([&] { return SSL_accept(ssl); }, deadline_ms) > 0) return conn;
    unsigned long err = ERR_peek_error();
    if (ERR_GET_REASON(err) == SSL_R_HTTP_REQUEST) {
      // Go's answer to plain HTTP on a TLS port.
      static const char kMsg[] = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";
      (void)!::send(fd, kMsg, sizeof kMsg - 1, MSG_NOSIGNAL);
    }
    log_.debug("TLS handshake failed", {{"error", net::openssl_errors()}});
    SSL_set_quiet_shutdown(ssl, 1);
    return nullptr;
  }

 private:
  std::weak_ptr<WebSecurity> sec_;
  base::Logger& log_;
};

Expected<std::shared_ptr<const WebSecurity::State>> build_state(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.status();
  auto cfg = parse_web_config(*text, path);
  if (!cfg) return cfg.status();
  auto st = std::make_shared<WebSecurity::State>();
  st->config = std::move(*cfg);
  st->stamps.push_back(stamp(path));
  if (st->config.tls.enabled) {
    auto ctx = build_ctx(st->config.tls);
    if (!ctx) return Status::error(path + ": " + ctx.error());
    st->ctx = *ctx;
    for (const std::string* f : {&st->config.tls.cert_file, &st->config.tls.key_file, &st->config.tls.client_ca_file})
      st->stamps.push_back(stamp(*f));
  }
  st->auth = std::make_shared<BasicAuthVerifier>(st->config.users);
  return std::shared_ptr<const WebSecurity::State>(std::move(st));
}

}  // namespace

Status check_web_config_file(const std::string& path) {
  auto st = build_state(path);
  return st ? Status::ok() : st.status();
}

WebSecurity::WebSecurity(std::string path, std::vector<std::string> admin_users, base::Logger& log)
    : path_(std::move(path)), admin_users_(std::move(admin_users)), log_(log) {}

WebSecurity::~WebSecurity() = default;

Status WebSecurity::load() {
  auto st = build_state(path_);
  if (!st) return st.status();
  std::lock_guard<std::mutex> lock(mu_);
  state_ = *st;
  return Status::ok();
}

bool WebSecurity::tls() const {
  return state_ && state_->ctx;
}

std::shared_ptr<http::Transport> WebSecurity::transport() {
  if (!tls()) return nullptr;
  return std::make_shared<TlsTransport>(weak_from_this(), log_);
}

std::shared_ptr<const WebSecurity::State> WebSecurity::current() {
  std::lock_guard<std::mutex> lock(mu_);
  bool changed = false;
  for (const FileStamp& s : state_->stamps) changed |= !(stamp(s.path) == s);
  if (!changed) return state_;
  auto st = build_state(path_);
  if (!st) {
    log_.warn("web config reload failed, keeping the previous one", {{"error", st.error()}});
    // Do not retry on every request until the files change again.
    auto keep = std::make_shared<State>(*state_);
    for (FileStamp& s : keep->stamps) s = stamp(s.path);
    state_ = keep;
    return state_;
  }
  bool was_tls = state_->ctx != nullptr;
  auto next = std::const_pointer_cast<State>(*st);
  if (was_tls != (next->ctx != nullptr)) {
    log_.warn("web config reload cannot turn TLS on or off without a restart; keeping the previous one");
    return state_;
  }
  log_.info("web config reloaded", {{"file", path_}});
  state_ = next;
  return state_;
}

bool WebSecurity::admit(const http::Request& req, http::Response& res) {
  auto st = current();
  if (st->config.users.empty()) return true;
  auto cred = parse_basic_authorization(req.header("authorization"));
  if (!cred || !st->auth->verify(cred->first, cred->second)) {
    res.status = 401;
    res.headers.emplace_back("WWW-Authenticate", "Basic");
    res.body = "Unauthorized\n";
    return false;
  }
  if (required_role(req.method, req.path) == Role::kAdmin && user_role(cred->first, admin_users_) != Role::kAdmin) {
    res.status = 403;
    res.body = "Forbidden: " + req.method + " " + req.path + " needs an admin user (--web.admin-users)\n";
    return false;
  }
  return true;
}

void WebSecurity::finish(http::Response& res) {
  auto st = current();
  for (const auto& h : st->config.headers) res.headers.push_back(h);
}

Expected<std::shared_ptr<WebSecurity>> open_web_security(const std::string& path, std::vector<std::string> admin_users,
                                                         base::Logger& log) {
  auto sec = std::make_shared<WebSecurity>(path, std::move(admin_users), log);
  if (Status s = sec->load(); !s) return s;
  return sec;
}

}  // namespace llmon::websec
