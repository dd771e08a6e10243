// Status and Expected<T>: errors as values across module boundaries.
// A Status is ok or carries a human message that names where the problem is
// (file, line, field). Expected<T> holds a T or a non-ok Status. Neither
// throws; both are cheap to move. Not thread-safe to share mutably.
// A "no data" status is an error that means "nothing to report here" (the
// hardware or kernel module is absent: node_exporter's ErrNoData): callers
// treat it as a failure but report it quietly.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace llmon {

class Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.ok_ = false;
    s.message_ = std::move(message);
    return s;
  }
  static Status no_data(std::string message) {
    Status s = error(std::move(message));
    s.no_data_ = true;
    return s;
  }
  bool is_ok() const { return ok_; }
  bool is_no_data() const { return no_data_; }
  explicit operator bool() const { return ok_; }
  const std::string& message() const { return message_; }
  // Prefixes the message with where it happened: "ctx: message".
  Status with_context(const std::string& ctx) const {
    if (ok_) return *this;
    Status s = error(ctx + ": " + message_);
    s.no_data_ = no_data_;
    return s;
  }

 private:
  bool ok_ = true;
  bool no_data_ = false;
  std::string message_;
};

template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Expected(Status error) : v_(std::move(error)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).is_ok());
  }
  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Status& status() const {
    static const Status kOk;
    return has_value() ? kOk : std::get<Status>(v_);
  }
  const std::string& error() const { return status().message(); }

 private:
  std::variant<T, Status> v_;
};

// The Expected form of a parser that fills a container it is given:
// `return filled<std::vector<Line>>([&](auto& out) { return parse(text, out); });`
template <typename T, typename Fill>
Expected<T> filled(Fill&& fill) {
  T out;
  Status s = fill(out);
  if (!s) return s;
  return out;
}

}  // namespace llmon
