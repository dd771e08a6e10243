// Deadline-bounded name resolution; see resolver.h for the thread design.
#include "net/resolver.h"

#include <netdb.h>

#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace llmon::net {
namespace {

// The answer slot shared by the waiting caller and the lookup thread.
struct Pending {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  int code = 0;
  std::vector<Address> addresses;
};

std::vector<Address> to_addresses(const addrinfo* list) {
  std::vector<Address> out;
  for (const addrinfo* ai = list; ai; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    Address a;
    std::memcpy(&a.storage, ai->ai_addr, ai->ai_addrlen);
    a.length = ai->ai_addrlen;
    a.family = ai->ai_family;
    a.protocol = ai->ai_protocol;
    out.push_back(a);
  }
  return out;
}

// One getaddrinfo call turned into addresses (the code, and none, on failure).
int lookup_once(const LookupFn& lookup, const std::string& host, const std::string& service, const addrinfo& hints,
                std::vector<Address>& out) {
  addrinfo* list = nullptr;
  const int rc = lookup ? lookup(host.c_str(), service.c_str(), &hints, &list)
                        : ::getaddrinfo(host.c_str(), service.c_str(), &hints, &list);
  if (rc != 0) return rc;
  out = to_addresses(list);
  ::freeaddrinfo(list);
  return out.empty() ? EAI_NONAME : 0;
}

}  // namespace

std::string Address::text() const {
  char host[NI_MAXHOST], serv[NI_MAXSERV];
  if (::getnameinfo(sockaddr_ptr(), length, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "?";
  return family == AF_INET6 ? "[" + std::string(host) + "]:" + serv : std::string(host) + ":" + serv;
}

std::string ResolveError::message() const {
  return timed_out ? "timed out" : ::gai_strerror(code);
}

Result<std::vector<Address>, ResolveError> resolve(const std::string& host, uint16_t port, Deadline deadline,
                                                   const ResolveOptions& opts) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (opts.only_configured_families ? AI_ADDRCONFIG : 0);
  const std::string service = std::to_string(port);

  // An IP literal needs no lookup: converted here, at once.
  addrinfo numeric = hints;
  numeric.ai_flags |= AI_NUMERICHOST;
  std::vector<Address> addresses;
  if (lookup_once(nullptr, host, service, numeric, addresses) == 0) return addresses;

  auto pending = std::make_shared<Pending>();
  try {
    std::thread([pending, lookup = opts.lookup, host, service, hints] {
      std::vector<Address> found;
      const int code = lookup_once(lookup, host, service, hints, found);
      std::lock_guard lock(pending->mu);
      pending->code = code;
      pending->addresses = std::move(found);
      pending->done = true;
      pending->cv.notify_all();
    }).detach();
  } catch (const std::system_error&) {
    return ResolveError{EAI_AGAIN, false};  // no thread to spare now: a retry may find one
  }
  std::unique_lock lock(pending->mu);
  if (!pending->cv.wait_until(lock, deadline, [&] { return pending->done; })) return ResolveError{0, true};
  if (pending->code != 0) return ResolveError{pending->code, false};
  return std::move(pending->addresses);
}

}  // namespace llmon::net
