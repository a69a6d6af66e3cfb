//===- mlgo/Tensor/TensorSpec.h - Named, typed, shaped tensors --*- C++ -*-===//
//
// A TensorSpec names one input or output of a model: a name, a port, a scalar
// type and a shape. It is the unit by which the compiler and a model (or a
// training host) bind features to each other, so it must mean exactly what
// LLVM 19's llvm::TensorSpec means and serialize to exactly the same JSON:
//
//   {"name":"callee_basic_block_count","type":"int64_t","port":0,"shape":[1]}
//
// Keys appear in that order, with no whitespace. "type" is the C spelling of
// the scalar type: one of float, double, int8_t, uint8_t, int16_t, uint16_t,
// int32_t, uint32_t, int64_t, uint64_t. Every key is required when parsing.
//
// This header needs LLVM Support only (StringRef, json, Error).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TENSOR_TENSORSPEC_H
#define MLGO_TENSOR_TENSORSPEC_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// The scalar types a tensor may hold, with their C spelling (which is also
/// their JSON spelling) and an enumerator name. The order matches LLVM's
/// SUPPORTED_TENSOR_TYPES.
#define MLGO_TENSOR_TYPES(M)                                                   \
  M(float, Float)                                                              \
  M(double, Double)                                                            \
  M(int8_t, Int8)                                                              \
  M(uint8_t, UInt8)                                                            \
  M(int16_t, Int16)                                                            \
  M(uint16_t, UInt16)                                                          \
  M(int32_t, Int32)                                                            \
  M(uint32_t, UInt32)                                                          \
  M(int64_t, Int64)                                                            \
  M(uint64_t, UInt64)

enum class TensorType {
  Invalid,
#define MLGO_TENSOR_TYPE_ENUM(CType, Name) Name,
  MLGO_TENSOR_TYPES(MLGO_TENSOR_TYPE_ENUM)
#undef MLGO_TENSOR_TYPE_ENUM
};

/// The C spelling of \p Type ("int64_t", "float", ...); "invalid" for Invalid.
llvm::StringRef toString(TensorType Type);

/// Parses the C spelling of a scalar type; std::nullopt if unknown.
std::optional<TensorType> parseTensorType(llvm::StringRef Name);

/// Size in bytes of one element of \p Type (0 for Invalid).
size_t getElementByteSize(TensorType Type);

template <typename T> constexpr TensorType tensorTypeOf();
#define MLGO_TENSOR_TYPE_OF(CType, Name)                                       \
  template <> constexpr TensorType tensorTypeOf<CType>() {                     \
    return TensorType::Name;                                                   \
  }
MLGO_TENSOR_TYPES(MLGO_TENSOR_TYPE_OF)
#undef MLGO_TENSOR_TYPE_OF

/// The largest tensor fromJSON accepts, in bytes (a shape beyond it is an
/// error, so that no size computed from a shape read from a file wraps).
inline constexpr uint64_t MaxTensorBytes = uint64_t(1) << 32;

/// Describes one tensor: name, port, scalar type and shape.
class TensorSpec final {
public:
  template <typename T>
  static TensorSpec createSpec(const std::string &Name,
                               const std::vector<int64_t> &Shape,
                               int Port = 0) {
    return TensorSpec(Name, Port, tensorTypeOf<T>(), Shape);
  }
  TensorSpec(const std::string &Name, int Port, TensorType Type,
             const std::vector<int64_t> &Shape);
  /// A copy of \p Other under a new name.
  TensorSpec(const std::string &NewName, const TensorSpec &Other)
      : TensorSpec(NewName, Other.Port, Other.Type, Other.Shape) {}

  const std::string &name() const { return Name; }
  int port() const { return Port; }
  TensorType type() const { return Type; }
  const std::vector<int64_t> &shape() const { return Shape; }

  /// Number of elements: the product of the shape's dimensions.
  size_t getElementCount() const { return ElementCount; }
  size_t getElementByteSize() const { return mlgo::getElementByteSize(Type); }
  /// Bytes of one contiguous buffer holding the whole tensor.
  size_t getTotalTensorBufferSize() const {
    return ElementCount * getElementByteSize();
  }
  template <typename T> bool isElementType() const {
    return tensorTypeOf<T>() == Type;
  }

  bool operator==(const TensorSpec &Other) const {
    return Name == Other.Name && Port == Other.Port && Type == Other.Type &&
           Shape == Other.Shape;
  }
  bool operator!=(const TensorSpec &Other) const { return !(*this == Other); }

  /// Writes the spec as LLVM 19 does, e.g.
  /// {"name":"x","type":"int64_t","port":0,"shape":[1]}.
  void toJSON(llvm::json::OStream &OS) const;
  /// The same JSON, as a compact string.
  std::string toJSONString() const;

  /// Parses a spec from JSON. Every key (name, type, port, shape) is
  /// required; unknown scalar types, negative dimensions and shapes of more
  /// than MaxTensorBytes are rejected.
  static llvm::Expected<TensorSpec> fromJSON(const llvm::json::Value &Value);

private:
  std::string Name;
  int Port = 0;
  TensorType Type = TensorType::Invalid;
  std::vector<int64_t> Shape;
  size_t ElementCount = 0;
};

/// Renders the values in \p Buffer (laid out as \p Spec describes) as a
/// comma-separated list. Integers are printed in decimal; floating point
/// values with the fewest digits that read back to the same bits.
std::string tensorValueToString(const char *Buffer, const TensorSpec &Spec);

/// Renders a single floating point value with the fewest significant digits
/// that parse back to the identical value ("0.1", "1e+30", "nan", "-inf").
std::string formatShortest(double V);
std::string formatShortest(float V);

} // namespace mlgo

#endif // MLGO_TENSOR_TENSORSPEC_H
