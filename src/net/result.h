// Result<T, E>: a value or a typed error, for the net layers whose callers
// word failures themselves (an SMTP sender says "read: ...", `llmon query`
// says "cannot connect to ..."); Expected<T> (base/status.h) carries only a
// message. Holding the error is not a bug to assert on: check has_value()
// first. Nothing throws; like any value, not thread-safe to share mutably.
#pragma once

#include <utility>
#include <variant>

namespace llmon::net {

template <typename T, typename E>
class Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(E error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

}  // namespace llmon::net
