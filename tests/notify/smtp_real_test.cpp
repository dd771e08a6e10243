// EmailSender against a real SMTP server: aiosmtpd 1.4 (Debian's
// python3-aiosmtpd) storing into a Maildir, which Python's email package
// then reads back (an implementation independent of ours): envelope sender
// and recipients, subject and both bodies. Variants: plain, STARTTLS with a
// self-signed certificate made here by the openssl CLI (trusted through
// ca_file; rejected by default verification and for the wrong name),
// implicit TLS (--smtpscert), and AUTH PLAIN / LOGIN. aiosmtpd's CLI has no
// authentication option; AUTH runs through a handler class of our own given
// with -c (PYTHONPATH), which checks the credentials and refuses MAIL before
// AUTH. Each test starts its server on a port picked free at run time and
// stops exactly that process.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/clock.h"
#include "notify/email/email.h"
#include "support/http_client.h"
#include "support/subprocess.h"

namespace llmon::notify {
namespace {

namespace fs = std::filesystem;
constexpr const char* kAiosmtpd = "/usr/bin/aiosmtpd";
constexpr int64_t kT10 = 1714557600000;

// Runs a command line (no user data in it), returns rc and output.
int run(const std::string& cmd, std::string* out) {
  FILE* f = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return -1;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) out->append(buf, n);
  int st = ::pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool can_connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// One aiosmtpd process; the destructor stops exactly it.
class Aiosmtpd {
 public:
  Aiosmtpd(const fs::path& dir, std::vector<std::string> extra,
           const std::string& handler = "aiosmtpd.handlers.Mailbox", std::vector<std::string> class_args = {})
      : dir_(dir), maildir_(dir / "Maildir"), log_(dir / "aiosmtpd.log") {
    port_ = llmon::testing::free_tcp_port();
    std::vector<std::string> args = {kAiosmtpd, "-n", "-l", "127.0.0.1:" + std::to_string(port_), "-c", handler};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(maildir_.string());
    args.insert(args.end(), class_args.begin(), class_args.end());
    pid_ = llmon::testing::spawn(args, log_.string(), {.env = {"PYTHONPATH=" + dir.string()}, .stdin_null = true});
    if (pid_ < 0) {
      error_ = "could not start aiosmtpd";
      return;
    }
    // Ready when it accepts connections; give up if it exits or takes > 30 s.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (can_connect(port_)) return;
      // Doubles as the 50 ms pause between tries.
      if (llmon::testing::wait_exit(pid_, std::chrono::milliseconds(50)) >= 0) {
        pid_ = -1;
        error_ = "aiosmtpd exited: " + llmon::testing::read_text(log_.string());
        return;
      }
    }
    error_ = "aiosmtpd did not listen within 30 s: " + llmon::testing::read_text(log_.string());
  }
  ~Aiosmtpd() { llmon::testing::stop_process(pid_, std::chrono::seconds(10)); }
  const std::string& error() const { return error_; }
  int port() const { return port_; }
  std::string log() const { return llmon::testing::read_text(log_.string()); }

  // Every stored message, as Python's email package reads it.
  nlohmann::json messages() const {
    fs::path script = dir_ / "read_maildir.py";
    std::ofstream(script) << R"PY(
import email, email.policy, json, mailbox, sys
box = mailbox.Maildir(sys.argv[1], factory=None, create=False)
out = []
for key in sorted(box.keys()):
    m = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
    out.append({'subject': str(m['subject']), 'from': str(m['from']), 'to': str(m['to']),
                'mail_from': str(m['X-MailFrom']), 'rcpt_to': str(m['X-RcptTo']),
                'message_id': str(m['message-id']), 'type': m.get_content_type(), 'defects': len(m.defects),
                'parts': [{'type': p.get_content_type(), 'content': p.get_content()} for p in m.iter_parts()]})
print(json.dumps(out))
)PY";
    std::string out;
    if (run("/usr/bin/python3 " + script.string() + " " + maildir_.string(), &out) != 0) return {{"error", out}};
    return nlohmann::json::parse(out, nullptr, false);
  }

 private:
  fs::path dir_, maildir_, log_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
};

class SmtpRealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(kAiosmtpd, X_OK) != 0) GTEST_SKIP() << kAiosmtpd << " not installed (Debian package python3-aiosmtpd)";
    if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "/usr/bin/python3 not installed";
    std::string t = (fs::path(::testing::TempDir()) / "llmon-smtp-XXXXXX").string();
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // A self-signed certificate for 127.0.0.1 / localhost, made by the openssl CLI.
  bool make_cert() {
    if (::access("/usr/bin/openssl", X_OK) != 0) return false;
    std::string out;
    int rc =
        run("/usr/bin/openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "
            "/CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " +
                (dir_ / "key.pem").string() + " -out " + (dir_ / "cert.pem").string(),
            &out);
    EXPECT_EQ(rc, 0) << out;
    return rc == 0;
  }

  EmailSenderConfig config(int port) {
    EmailSenderConfig c;
    c.to = {"GPU on call <gpu-oncall@example.org>", "ops@example.org"};
    c.from = "llmon <alerts@node1.example.org>";
    c.smarthost = "127.0.0.1:" + std::to_string(port);
    c.hello = "node1.example.org";
    c.require_tls = false;
    c.send_resolved = true;
    c.timeout_ms = 10000;
    return c;
  }

  Notification notification() {
    Notification n;
    n.receiver = "gpu-team";
    n.group_labels = {{"alertname", "GpuMemoryHigh"}};
    n.created_ms = kT10 + 65 * 60000;
    n.external_url = "http://node1:9100/alerts";
    Alert a;
    a.labels = {{"alertname", "GpuMemoryHigh"}, {"gpu", "gpu0"}, {"instance", "node1"}, {"uuid", "GPU-1"}};
    a.annotations = {{"summary", "GPU memory above 95% \xe2\x80\x94 97.3%"}, {"value", "97.3"}};
    a.starts_at_ms = kT10;
    a.ends_at_ms = n.created_ms + 240000;
    a.generator_url = "http://node1:9090/graph?g0.expr=x&g0.tab=1";
    n.alerts.push_back(a);
    a.labels[3].second = "GPU-2";
    a.annotations.push_back({"description", ".a line starting with a dot\n..and two"});
    n.alerts.push_back(a);
    return n;
  }

  DeliveryResult send(const EmailSenderConfig& c, const Notification& n) {
    auto s = EmailSender::create(c, clock_, "node1.example.org");
    EXPECT_TRUE(s) << s.error();
    if (!s) return {DeliveryOutcome::kFailed, s.error()};
    return (*s)->send(n);
  }

  // The one stored message checked against what we sent.
  void expect_delivered(const Aiosmtpd& srv, const Notification& n, size_t expected_count = 1) {
    nlohmann::json msgs = srv.messages();
    ASSERT_TRUE(msgs.is_array()) << msgs.dump() << "\n" << srv.log();
    ASSERT_EQ(msgs.size(), expected_count) << msgs.dump();
    const auto& m = msgs.back();
    EXPECT_EQ(m["mail_from"], "alerts@node1.example.org");
    EXPECT_EQ(m["rcpt_to"], "gpu-oncall@example.org, ops@example.org");
    EXPECT_EQ(m["from"], "llmon <alerts@node1.example.org>");
    EXPECT_EQ(m["to"], "GPU on call <gpu-oncall@example.org>, ops@example.org");
    EXPECT_EQ(m["subject"], email_subject(n));
    EXPECT_EQ(m["subject"], "[FIRING:2] GpuMemoryHigh (gpu0 node1)");
    EXPECT_EQ(m["type"], "multipart/alternative");
    EXPECT_EQ(m["defects"], 0);
    ASSERT_EQ(m["parts"].size(), 2u);
    EXPECT_EQ(m["parts"][0]["type"], "text/plain");
    EXPECT_EQ(m["parts"][0]["content"], email_text_body(n));
    EXPECT_EQ(m["parts"][1]["type"], "text/html");
    EXPECT_EQ(m["parts"][1]["content"], email_html_body(n));
    // Dot-stuffing undone by the server: the text keeps its leading dots.
    EXPECT_NE(m["parts"][0]["content"].get<std::string>().find("\n               ..and two"), std::string::npos);
  }

  fs::path dir_;
  base::ManualClock clock_{kT10 + 66 * 60000};
};

TEST_F(SmtpRealTest, Plain) {
  Aiosmtpd srv(dir_, {});
  ASSERT_EQ(srv.error(), "");
  Notification n = notification();
  DeliveryResult r = send(config(srv.port()), n);
  ASSERT_EQ(r.outcome, DeliveryOutcome::kDelivered) << r.error << "\n" << srv.log();
  expect_delivered(srv, n);

  // Without STARTTLS on offer, require_tls (the default) refuses to send.
  EmailSenderConfig strict = config(srv.port());
  strict.require_tls = true;
  DeliveryResult s = send(strict, n);
  EXPECT_EQ(s.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(s.error.find("does not advertise STARTTLS"), std::string::npos) << s.error;
  EXPECT_EQ(srv.messages().size(), 1u);
}

TEST_F(SmtpRealTest, StartTls) {
  if (!make_cert()) GTEST_SKIP() << "/usr/bin/openssl not installed";
  Aiosmtpd srv(dir_, {"--tlscert", (dir_ / "cert.pem").string(), "--tlskey", (dir_ / "key.pem").string()});
  ASSERT_EQ(srv.error(), "");
  Notification n = notification();
  EmailSenderConfig c = config(srv.port());
  c.require_tls = true;

  // Default verification (system CAs) rejects the self-signed certificate.
  DeliveryResult untrusted = send(c, n);
  EXPECT_EQ(untrusted.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(untrusted.error.find("smtp 127.0.0.1:" + std::to_string(srv.port()) +
                                 ": TLS handshake: certificate verification failed: "),
            std::string::npos)
      << untrusted.error;

  // Trusted through ca_file, but the name we verify is not in it.
  c.tls.ca_file = (dir_ / "cert.pem").string();
  c.tls.server_name = "mail.example.org";
  DeliveryResult wrong_name = send(c, n);
  EXPECT_EQ(wrong_name.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(wrong_name.error.find("certificate verification failed: hostname mismatch"), std::string::npos)
      << wrong_name.error;

  c.tls.server_name = "localhost";  // SNI + name check against the DNS SAN
  DeliveryResult ok = send(c, n);
  ASSERT_EQ(ok.outcome, DeliveryOutcome::kDelivered) << ok.error << "\n" << srv.log();
  expect_delivered(srv, n);

  c.tls.server_name.clear();  // the IP address against the IP SAN
  DeliveryResult by_ip = send(c, n);
  EXPECT_EQ(by_ip.outcome, DeliveryOutcome::kDelivered) << by_ip.error;
  expect_delivered(srv, n, 2);
}

TEST_F(SmtpRealTest, ImplicitTls) {
  if (!make_cert()) GTEST_SKIP() << "/usr/bin/openssl not installed";
  Aiosmtpd srv(dir_, {"--smtpscert", (dir_ / "cert.pem").string(), "--smtpskey", (dir_ / "key.pem").string()});
  ASSERT_EQ(srv.error(), "");
  Notification n = notification();
  EmailSenderConfig c = config(srv.port());
  c.implicit_tls = true;
  c.require_tls = true;  // satisfied by implicit TLS; no STARTTLS needed
  c.tls.ca_file = (dir_ / "cert.pem").string();
  DeliveryResult r = send(c, n);
  ASSERT_EQ(r.outcome, DeliveryOutcome::kDelivered) << r.error << "\n" << srv.log();
  expect_delivered(srv, n);

  // A plain-text client on the TLS port gets no usable greeting.
  EmailSenderConfig plain = config(srv.port());
  plain.timeout_ms = 1500;
  DeliveryResult p = send(plain, n);
  EXPECT_EQ(p.outcome, DeliveryOutcome::kRetry) << p.error;
}

// aiosmtpd handler with AUTH: PLAIN and LOGIN checked against fixed
// credentials; the EHLO hook can narrow the advertised mechanisms; MAIL is
// refused before AUTH.
constexpr const char* kAuthHandler = R"PY(
import base64
from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import AuthResult, MISSING

USER, PASSWORD = b"llmon", b"s3cret pw"

class AuthMailbox(Mailbox):
    def __init__(self, mail_dir, mechanisms):
        super().__init__(mail_dir)
        self.mechanisms = mechanisms

    @classmethod
    def from_cli(cls, parser, *args):
        return cls(args[0], args[1])

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        return [("250-AUTH " + self.mechanisms) if r.startswith("250-AUTH ") else r for r in responses]

    def _check(self, user, password):
        ok = user == USER and password == PASSWORD
        # handled=False: on failure aiosmtpd itself answers 535.
        return AuthResult(success=ok, handled=False, auth_data=user if ok else None)

    async def auth_PLAIN(self, server, args):
        data = await server.challenge_auth("") if len(args) == 1 else base64.b64decode(args[1])
        if data is MISSING:
            return AuthResult(success=False)
        _, user, password = data.split(b"\0")
        return self._check(user, password)

    async def auth_LOGIN(self, server, args):
        user = await server.challenge_auth("Username:") if len(args) == 1 else base64.b64decode(args[1])
        if user is MISSING:
            return AuthResult(success=False)
        password = await server.challenge_auth("Password:")
        if password is MISSING:
            return AuthResult(success=False)
        return self._check(user, password)

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if not session.authenticated:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"
)PY";

TEST_F(SmtpRealTest, Auth) {
  if (!make_cert()) GTEST_SKIP() << "/usr/bin/openssl not installed";
  std::ofstream(dir_ / "llmon_auth_handler.py") << kAuthHandler;
  for (std::string mech : {"PLAIN LOGIN", "LOGIN"}) {
    SCOPED_TRACE(mech);
    fs::remove_all(dir_ / "Maildir");
    Aiosmtpd srv(dir_, {"--tlscert", (dir_ / "cert.pem").string(), "--tlskey", (dir_ / "key.pem").string()},
                 "llmon_auth_handler.AuthMailbox", {mech});
    ASSERT_EQ(srv.error(), "");
    Notification n = notification();
    EmailSenderConfig c = config(srv.port());
    c.require_tls = true;
    c.tls.ca_file = (dir_ / "cert.pem").string();

    DeliveryResult anon = send(c, n);  // no credentials: the server insists
    EXPECT_EQ(anon.outcome, DeliveryOutcome::kFailed);
    EXPECT_NE(anon.error.find("MAIL FROM <alerts@node1.example.org>: 530 5.7.0 Authentication required"),
              std::string::npos)
        << anon.error;

    c.auth_username = "llmon";
    c.auth_password = "wrong";
    DeliveryResult bad = send(c, n);
    EXPECT_EQ(bad.outcome, DeliveryOutcome::kFailed);
    EXPECT_NE(bad.error.find(": AUTH " + std::string(mech == "LOGIN" ? "LOGIN" : "PLAIN") + ": 535 "),
              std::string::npos)
        << bad.error;
    EXPECT_EQ(bad.error.find("wrong"), std::string::npos) << "password in the error";

    c.auth_password = "s3cret pw";
    DeliveryResult ok = send(c, n);
    ASSERT_EQ(ok.outcome, DeliveryOutcome::kDelivered) << ok.error << "\n" << srv.log();
    expect_delivered(srv, n);
  }
}

}  // namespace
}  // namespace llmon::notify
