//===- mlgo/Support/JSONInteger.h - Integers read from JSON -----*- C++ -*-===//
//
// llvm::json::Value::getAsInteger in LLVM 19 accepts a JSON number written
// as a double whose value is 2^63 (it compares against
// double(INT64_MAX), which rounds up to 2^63) and converts it to int64_t,
// which is undefined behaviour (found by fuzz/tensor-spec with
// "shape":[9223372036854775807.92]). Every reader of outside JSON asks for
// integers through these functions instead.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_JSONINTEGER_H
#define MLGO_SUPPORT_JSONINTEGER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>

namespace mlgo {

/// \p V as an int64_t: an integer, or a double with an integral value, in
/// range; std::nullopt otherwise.
inline std::optional<int64_t> getAsInt64(const llvm::json::Value &V) {
  // Integers (the only values getAsUINT64 accepts, besides unsigned ones
  // beyond int64_t) never go through a double.
  if (!V.getAsUINT64()) {
    std::optional<double> D = V.getAsNumber();
    if (D && *D >= 0x1p63)
      return std::nullopt;
  }
  return V.getAsInteger();
}

/// The value of \p Key in \p O as an int64_t (see getAsInt64).
inline std::optional<int64_t> getInt64(const llvm::json::Object &O,
                                       llvm::StringRef Key) {
  if (const llvm::json::Value *V = O.get(Key))
    return getAsInt64(*V);
  return std::nullopt;
}

} // namespace mlgo

#endif // MLGO_SUPPORT_JSONINTEGER_H
