// The SMTP client state machine driven by literal server transcripts: what
// the client says back, and the outcome, for success, STARTTLS, AUTH, HELO
// fallback, 4xx/5xx at every step, a server that goes away mid-DATA, and
// DATA encoding (dot-stuffing, CRLF normalisation).
#include "notify/email/smtp_dialogue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "notify/email/email_mime.h"

namespace llmon::notify {
namespace {

struct Transcript {
  std::vector<std::string> client;  // what the client sent, one entry per write; "<TLS>" for the handshake
  DeliveryResult result;
  bool ended = false;
};

// Feeds `server` replies in order; when they run out the server "closes".
Transcript run(const SmtpClientConfig& cfg, const SmtpEnvelope& env, std::string_view msg,
               const std::vector<std::string>& server, bool tls_active = false) {
  SmtpDialogue d(cfg, env, msg, tls_active);
  Transcript out;
  size_t next = 0;
  auto event = [&]() {
    if (next >= server.size()) return d.on_transport_error("connection closed by the server");
    auto r = parse_smtp_reply(server[next++]);
    EXPECT_TRUE(r) << r.error();
    return d.on_reply(*r);
  };
  SmtpDialogue::Action a = event();
  for (int guard = 0; guard < 100; ++guard) {
    using K = SmtpDialogue::Action::Kind;
    if (a.kind == K::kSend) {
      out.client.push_back(a.bytes);
      a = event();
    } else if (a.kind == K::kStartTls) {
      out.client.push_back("<TLS>");
      a = d.on_tls_ready();
    } else {
      if (!a.bytes.empty()) out.client.push_back(a.bytes);
      out.result = a.result;
      out.ended = true;
      return out;
    }
  }
  ADD_FAILURE() << "dialogue did not end";
  return out;
}

SmtpClientConfig plain_cfg() {
  SmtpClientConfig c;
  c.host = "127.0.0.1";
  c.port = 2525;
  c.require_tls = false;
  c.hello = "gpu-node1";
  return c;
}

const SmtpEnvelope kEnv{"alerts@example.org", {"a@example.org", "b@example.org"}};
const std::string kMsg = "Subject: x\r\n\r\nbody\r\n";
const std::string kPayload = "Subject: x\r\n\r\nbody\r\n.\r\n";

const std::vector<std::string> kHappy = {"220 mx.example.org ESMTP\r\n",
                                         "250-mx.example.org\r\n250-PIPELINING\r\n250 8BITMIME\r\n",
                                         "250 2.1.0 Ok\r\n",
                                         "250 2.1.5 Ok\r\n",
                                         "251 2.1.5 forwarded\r\n",
                                         "354 End data with <CR><LF>.<CR><LF>\r\n",
                                         "250 2.0.0 queued as 1234\r\n",
                                         "221 2.0.0 Bye\r\n"};

TEST(SmtpDialogue, PlainSuccess) {
  Transcript r = run(plain_cfg(), kEnv, kMsg, kHappy);
  ASSERT_TRUE(r.ended);
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kDelivered) << r.result.error;
  EXPECT_EQ(r.result.error, "");
  std::vector<std::string> want = {"EHLO gpu-node1\r\n",
                                   "MAIL FROM:<alerts@example.org>\r\n",
                                   "RCPT TO:<a@example.org>\r\n",
                                   "RCPT TO:<b@example.org>\r\n",
                                   "DATA\r\n",
                                   kPayload,
                                   "QUIT\r\n"};
  EXPECT_EQ(r.client, want);
}

TEST(SmtpDialogue, LostQuitReplyStillDelivered) {
  std::vector<std::string> s(kHappy.begin(), kHappy.end() - 1);  // closes instead of 221
  Transcript r = run(plain_cfg(), kEnv, kMsg, s);
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kDelivered) << r.result.error;
}

TEST(SmtpDialogue, StartTlsThenAuthPlain) {
  SmtpClientConfig c = plain_cfg();
  c.require_tls = true;
  c.auth_username = "user";
  c.auth_password = "pa ss";
  Transcript r = run(c, kEnv, kMsg,
                     {"220 hi\r\n", "250-mx\r\n250-AUTH PLAIN\r\n250 STARTTLS\r\n", "220 2.0.0 Ready to start TLS\r\n",
                      "250-mx\r\n250 AUTH LOGIN PLAIN\r\n", "235 2.7.0 Authentication successful\r\n", "250 ok\r\n",
                      "250 ok\r\n", "250 ok\r\n", "354 go\r\n", "250 ok\r\n", "221 bye\r\n"});
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kDelivered) << r.result.error;
  ASSERT_GE(r.client.size(), 6u);
  EXPECT_EQ(r.client[0], "EHLO gpu-node1\r\n");
  EXPECT_EQ(r.client[1], "STARTTLS\r\n");  // AUTH is not used before TLS even though offered
  EXPECT_EQ(r.client[2], "<TLS>");
  EXPECT_EQ(r.client[3], "EHLO gpu-node1\r\n");
  std::string token("\0user\0pa ss", 11);
  EXPECT_EQ(r.client[4], "AUTH PLAIN " + base64_encode(token) + "\r\n");
  EXPECT_EQ(r.client[4], "AUTH PLAIN AHVzZXIAcGEgc3M=\r\n");  // computed by hand: base64("\0user\0pa ss")
  EXPECT_EQ(r.client[5], "MAIL FROM:<alerts@example.org>\r\n");
}

TEST(SmtpDialogue, AuthLogin) {
  SmtpClientConfig c = plain_cfg();
  c.auth_username = "user";
  c.auth_password = "secret";
  Transcript r =
      run(c, kEnv, kMsg,
          {"220 hi\r\n", "250-mx\r\n250 AUTH LOGIN\r\n", "334 VXNlcm5hbWU6\r\n", "334 UGFzc3dvcmQ6\r\n", "235 ok\r\n",
           "250 ok\r\n", "250 ok\r\n", "250 ok\r\n", "354 go\r\n", "250 ok\r\n", "221 bye\r\n"},
          /*tls_active=*/true);
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kDelivered) << r.result.error;
  ASSERT_GE(r.client.size(), 5u);
  EXPECT_EQ(r.client[1], "AUTH LOGIN\r\n");
  EXPECT_EQ(r.client[2], "dXNlcg==\r\n");
  EXPECT_EQ(r.client[3], "c2VjcmV0\r\n");
  EXPECT_EQ(r.client[4], "MAIL FROM:<alerts@example.org>\r\n");
}

TEST(SmtpDialogue, AuthRefusedFailsPermanentlyWithoutLeakingSecrets) {
  SmtpClientConfig c = plain_cfg();
  c.auth_username = "user";
  c.auth_password = "secret";
  Transcript r =
      run(c, kEnv, kMsg, {"220 hi\r\n", "250-mx\r\n250 AUTH PLAIN\r\n", "535 5.7.8 credentials invalid\r\n"}, true);
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kFailed);
  EXPECT_EQ(r.result.error, "smtp 127.0.0.1:2525: AUTH PLAIN: 535 5.7.8 credentials invalid");
  EXPECT_EQ(r.client.back(), "QUIT\r\n");

  Transcript t = run(c, kEnv, kMsg, {"220 hi\r\n", "250-mx\r\n250 AUTH PLAIN\r\n", "454 4.7.0 try later\r\n"}, true);
  EXPECT_EQ(t.result.outcome, DeliveryOutcome::kRetry);
}

TEST(SmtpDialogue, NoCredentialsOverPlainText) {
  SmtpClientConfig c = plain_cfg();
  c.auth_username = "user";
  c.auth_password = "secret";
  Transcript r = run(c, kEnv, kMsg, {"220 hi\r\n", "250-mx\r\n250 AUTH PLAIN LOGIN\r\n"});
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(r.result.error.find("unencrypted"), std::string::npos) << r.result.error;
  for (const auto& line : r.client) EXPECT_EQ(line.find("AUTH"), std::string::npos) << line;

  c.allow_insecure_auth = true;
  Transcript ok = run(c, kEnv, kMsg,
                      {"220 hi\r\n", "250-mx\r\n250 AUTH PLAIN LOGIN\r\n", "235 ok\r\n", "250 ok\r\n", "250 ok\r\n",
                       "250 ok\r\n", "354 go\r\n", "250 ok\r\n", "221 bye\r\n"});
  EXPECT_EQ(ok.result.outcome, DeliveryOutcome::kDelivered) << ok.result.error;
  EXPECT_EQ(ok.client[1].rfind("AUTH PLAIN ", 0), 0u);
}

TEST(SmtpDialogue, AuthNotOfferedIsSkippedAndUnknownMechanismsFail) {
  SmtpClientConfig c = plain_cfg();
  c.auth_username = "user";
  Transcript r = run(c, kEnv, kMsg, kHappy, true);
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kDelivered);
  EXPECT_EQ(r.client[1], "MAIL FROM:<alerts@example.org>\r\n");

  Transcript u = run(c, kEnv, kMsg, {"220 hi\r\n", "250-mx\r\n250 AUTH CRAM-MD5 XOAUTH2\r\n"}, true);
  EXPECT_EQ(u.result.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(u.result.error.find("AUTH CRAM-MD5 XOAUTH2"), std::string::npos) << u.result.error;
}

TEST(SmtpDialogue, RequireTlsWithoutStartTls) {
  SmtpClientConfig c = plain_cfg();
  c.require_tls = true;
  Transcript r = run(c, kEnv, kMsg, kHappy);
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kFailed);
  EXPECT_EQ(r.result.error,
            "smtp 127.0.0.1:2525: EHLO gpu-node1: require_tls is set but the server does not advertise STARTTLS");
  EXPECT_EQ(r.client, (std::vector<std::string>{"EHLO gpu-node1\r\n", "QUIT\r\n"}));
  // Implicit TLS needs no STARTTLS, and does not do it even when offered.
  Transcript i = run(c, kEnv, kMsg,
                     {"220 hi\r\n", "250-mx\r\n250 STARTTLS\r\n", "250 ok\r\n", "250 ok\r\n", "250 ok\r\n",
                      "354 go\r\n", "250 ok\r\n", "221 bye\r\n"},
                     true);
  EXPECT_EQ(i.result.outcome, DeliveryOutcome::kDelivered) << i.result.error;
  EXPECT_EQ(i.client[1], "MAIL FROM:<alerts@example.org>\r\n");
}

TEST(SmtpDialogue, HeloFallback) {
  Transcript r = run(plain_cfg(), kEnv, kMsg,
                     {"220 old server\r\n", "502 5.5.2 Error: command not recognized\r\n", "250 old\r\n", "250 ok\r\n",
                      "250 ok\r\n", "250 ok\r\n", "354 go\r\n", "250 ok\r\n", "221 bye\r\n"});
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kDelivered) << r.result.error;
  EXPECT_EQ(r.client[1], "HELO gpu-node1\r\n");

  SmtpClientConfig c = plain_cfg();
  c.require_tls = true;
  Transcript t = run(c, kEnv, kMsg, {"220 old\r\n", "500 what\r\n", "250 old\r\n"});
  EXPECT_EQ(t.result.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(t.result.error.find("HELO gpu-node1: require_tls"), std::string::npos) << t.result.error;

  Transcript h = run(plain_cfg(), kEnv, kMsg, {"220 old\r\n", "500 what\r\n", "501 no\r\n"});
  EXPECT_EQ(h.result.outcome, DeliveryOutcome::kFailed);
  EXPECT_EQ(h.result.error, "smtp 127.0.0.1:2525: HELO gpu-node1: 501 no");
}

// A 4xx or 5xx in place of each reply of the happy transcript: the step is
// named, the reply quoted, the outcome follows the first digit, and the
// client says QUIT.
TEST(SmtpDialogue, ErrorAtEachStep) {
  const std::vector<std::string> steps = {"greeting",
                                          "EHLO gpu-node1",
                                          "MAIL FROM <alerts@example.org>",
                                          "RCPT TO <a@example.org>",
                                          "RCPT TO <b@example.org>",
                                          "DATA",
                                          "end of DATA"};
  for (size_t i = 0; i < steps.size(); ++i) {
    for (int code : {421, 451, 452, 550, 552, 554}) {
      if (i == 1 && code >= 500) continue;  // EHLO 5xx means "try HELO" (HeloFallback)
      std::vector<std::string> s(kHappy.begin(), kHappy.begin() + static_cast<long>(i));
      s.push_back(std::to_string(code) + " 4.0.0 something\r\n");
      Transcript r = run(plain_cfg(), kEnv, kMsg, s);
      SCOPED_TRACE(steps[i] + " " + std::to_string(code));
      ASSERT_TRUE(r.ended);
      EXPECT_EQ(r.result.outcome, code < 500 ? DeliveryOutcome::kRetry : DeliveryOutcome::kFailed);
      EXPECT_EQ(r.result.error, "smtp 127.0.0.1:2525: " + steps[i] + ": " + std::to_string(code) + " 4.0.0 something");
      EXPECT_EQ(r.client.back(), "QUIT\r\n");
    }
  }
}

TEST(SmtpDialogue, RcptRejectedMessage) {
  Transcript r =
      run(plain_cfg(), kEnv, kMsg,
          {"220 hi\r\n", "250 mx\r\n", "250 ok\r\n", "550 5.1.1 <a@example.org>: Recipient address rejected\r\n"});
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kFailed);
  EXPECT_EQ(r.result.error,
            "smtp 127.0.0.1:2525: RCPT TO <a@example.org>: 550 5.1.1 <a@example.org>: Recipient address rejected");
  // No DATA after a rejected recipient.
  for (const auto& l : r.client) EXPECT_NE(l, "DATA\r\n");
}

TEST(SmtpDialogue, ServerGoesAwayMidData) {
  std::vector<std::string> s(kHappy.begin(), kHappy.begin() + 6);  // up to and including 354
  Transcript r = run(plain_cfg(), kEnv, kMsg, s);
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kRetry);
  EXPECT_EQ(r.result.error, "smtp 127.0.0.1:2525: end of DATA: connection closed by the server");
  EXPECT_EQ(r.client.back(), kPayload);  // no QUIT on a dead connection

  Transcript g = run(plain_cfg(), kEnv, kMsg, {});
  EXPECT_EQ(g.result.outcome, DeliveryOutcome::kRetry);
  EXPECT_EQ(g.result.error, "smtp 127.0.0.1:2525: greeting: connection closed by the server");
  EXPECT_TRUE(g.client.empty());
}

TEST(SmtpDialogue, UnexpectedPositiveReplyIsAProtocolError) {
  Transcript r =
      run(plain_cfg(), kEnv, kMsg,
          {"220 hi\r\n", "250 mx\r\n", "250 ok\r\n", "250 ok\r\n", "250 ok\r\n", "250 DATA without 354\r\n"});
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kRetry);
  EXPECT_EQ(r.result.error, "smtp 127.0.0.1:2525: DATA: unexpected reply 250 DATA without 354");
  Transcript g = run(plain_cfg(), kEnv, kMsg, {"250 not a greeting\r\n"});
  EXPECT_EQ(g.result.outcome, DeliveryOutcome::kRetry);
}

TEST(SmtpDialogue, SizeLimit) {
  std::string big(5000, 'x');
  Transcript r = run(plain_cfg(), kEnv, big, {"220 hi\r\n", "250-mx\r\n250 SIZE 1000\r\n"});
  EXPECT_EQ(r.result.outcome, DeliveryOutcome::kFailed);
  EXPECT_NE(r.result.error.find("exceeds the server's SIZE 1000"), std::string::npos) << r.result.error;
  Transcript ok = run(plain_cfg(), kEnv, kMsg,
                      {"220 hi\r\n", "250-mx\r\n250 SIZE 0\r\n", "250 ok\r\n", "250 ok\r\n", "250 ok\r\n", "354 go\r\n",
                       "250 ok\r\n", "221 bye\r\n"});
  EXPECT_EQ(ok.result.outcome, DeliveryOutcome::kDelivered);  // SIZE 0: no limit
}

TEST(SmtpDataPayload, DotStuffingAndLineEndings) {
  EXPECT_EQ(smtp_data_payload(""), ".\r\n");
  EXPECT_EQ(smtp_data_payload("a"), "a\r\n.\r\n");
  EXPECT_EQ(smtp_data_payload("a\nb\r\nc\rd\n"), "a\r\nb\r\nc\r\nd\r\n.\r\n");
  EXPECT_EQ(smtp_data_payload(".\n..x\n. \nx.y\n"), "..\r\n...x\r\n.. \r\nx.y\r\n.\r\n");
  EXPECT_EQ(smtp_data_payload("line\r\n.\r\nafter"), "line\r\n..\r\nafter\r\n.\r\n");
  EXPECT_EQ(smtp_data_payload("\n\n"), "\r\n\r\n.\r\n");
  // A message cannot end the DATA early: no "\r\n.\r\n" before the real end.
  std::string tricky = "x\r\n.\r\nMAIL FROM:<evil@x>\n.\n";
  std::string p = smtp_data_payload(tricky);
  EXPECT_EQ(p.find("\r\n.\r\n"), p.size() - 5);
}

}  // namespace
}  // namespace llmon::notify
