// service/parsed.h
//
// A request as api/ read it from a body: its value, or the fault that reading it found. A service
// takes a Parsed request where the body's faults must not be refused before what the service
// checks first -- the caller's rights and the objects the request is about -- nor at all when
// the service has no use for that part of the body (a filter entry's member that its selector's
// type does not read). value() throws the kept fault, where the service reads the request, so a
// request is refused for the same reason, in the same order, as when the service read the body
// itself.
#pragma once

#include <exception>
#include <type_traits>
#include <utility>

namespace tessera::service {

template <class T>
class Parsed {
 public:
  Parsed() = default;
  Parsed(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)

  // What `read` returns, or the fault it throws.
  template <class Read>
  static Parsed Of(Read&& read) {
    try {
      return Parsed(std::forward<Read>(read)());
    } catch (...) {
      Parsed failed;
      failed.fault_ = std::current_exception();
      return failed;
    }
  }

  const T& value() const {
    if (fault_) std::rethrow_exception(fault_);
    return value_;
  }
  T& value() {
    if (fault_) std::rethrow_exception(fault_);
    return value_;
  }

 private:
  T value_{};
  std::exception_ptr fault_;
};

// Parsed<T>::Of for the T that `read` returns.
template <class Read>
auto ParsedOf(Read&& read) {
  return Parsed<std::decay_t<std::invoke_result_t<Read&>>>::Of(std::forward<Read>(read));
}

}  // namespace tessera::service
