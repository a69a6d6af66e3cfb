//===- TensorSpec.cpp - Named, typed, shaped tensors ----------------------===//
//
// JSON (de)serialization of TensorSpec, byte-compatible with LLVM 19's
// llvm::TensorSpec::toJSON, and value printing for log dumps.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tensor/TensorSpec.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/JSONInteger.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace mlgo {

StringRef toString(TensorType Type) {
  switch (Type) {
#define MLGO_TENSOR_TYPE_NAME(CType, Name)                                     \
  case TensorType::Name:                                                       \
    return #CType;
    MLGO_TENSOR_TYPES(MLGO_TENSOR_TYPE_NAME)
#undef MLGO_TENSOR_TYPE_NAME
  case TensorType::Invalid:
    break;
  }
  return "invalid";
}

std::optional<TensorType> parseTensorType(StringRef Name) {
#define MLGO_TENSOR_TYPE_PARSE(CType, Name_)                                   \
  if (Name == #CType)                                                          \
    return TensorType::Name_;
  MLGO_TENSOR_TYPES(MLGO_TENSOR_TYPE_PARSE)
#undef MLGO_TENSOR_TYPE_PARSE
  return std::nullopt;
}

size_t getElementByteSize(TensorType Type) {
  switch (Type) {
#define MLGO_TENSOR_TYPE_SIZE(CType, Name)                                     \
  case TensorType::Name:                                                       \
    return sizeof(CType);
    MLGO_TENSOR_TYPES(MLGO_TENSOR_TYPE_SIZE)
#undef MLGO_TENSOR_TYPE_SIZE
  case TensorType::Invalid:
    break;
  }
  return 0;
}

TensorSpec::TensorSpec(const std::string &Name, int Port, TensorType Type,
                       const std::vector<int64_t> &Shape)
    : Name(Name), Port(Port), Type(Type), Shape(Shape) {
  ElementCount = 1;
  for (int64_t D : Shape)
    ElementCount *= static_cast<size_t>(D);
}

void TensorSpec::toJSON(json::OStream &OS) const {
  OS.object([&] {
    OS.attribute("name", Name);
    OS.attribute("type", toString(Type));
    OS.attribute("port", Port);
    OS.attributeArray("shape", [&] {
      for (int64_t D : Shape)
        OS.value(D);
    });
  });
}

std::string TensorSpec::toJSONString() const {
  std::string S;
  raw_string_ostream RS(S);
  json::OStream JOS(RS);
  toJSON(JOS);
  RS.flush();
  return S;
}

Expected<TensorSpec> TensorSpec::fromJSON(const json::Value &Value) {
  auto Fail = [&](const Twine &Why) -> Error {
    std::string Rendered;
    raw_string_ostream(Rendered) << Value;
    return makeError("invalid tensor spec " + Rendered + ": " + Why);
  };
  const json::Object *Obj = Value.getAsObject();
  if (!Obj)
    return Fail("expected a JSON object");
  std::optional<StringRef> Name = Obj->getString("name");
  if (!Name)
    return Fail("missing string key 'name'");
  std::optional<StringRef> TypeName = Obj->getString("type");
  if (!TypeName)
    return Fail("missing string key 'type'");
  std::optional<TensorType> Type = parseTensorType(*TypeName);
  if (!Type)
    return Fail("unknown type '" + *TypeName +
                "' (expected one of float, double, int8_t, uint8_t, int16_t, "
                "uint16_t, int32_t, uint32_t, int64_t, uint64_t)");
  std::optional<int64_t> Port = getInt64(*Obj, "port");
  if (!Port)
    return Fail("missing integer key 'port'");
  if (*Port < INT32_MIN || *Port > INT32_MAX)
    return Fail("'port' must be a 32-bit integer");
  const json::Array *ShapeArray = Obj->getArray("shape");
  if (!ShapeArray)
    return Fail("missing array key 'shape'");
  std::vector<int64_t> Shape;
  for (const json::Value &Dim : *ShapeArray) {
    std::optional<int64_t> D = getAsInt64(Dim);
    if (!D || *D < 0)
      return Fail("'shape' must hold non-negative integers");
    Shape.push_back(*D);
  }
  // Sizes computed from the shape must not wrap around: a tensor is at
  // most MaxTensorBytes.
  uint64_t Bytes = mlgo::getElementByteSize(*Type);
  if (!llvm::is_contained(Shape, 0))
    for (int64_t D : Shape) {
      if (Bytes > MaxTensorBytes / static_cast<uint64_t>(D))
        return Fail("'shape' describes more than " + Twine(MaxTensorBytes) +
                    " bytes");
      Bytes *= static_cast<uint64_t>(D);
    }
  return TensorSpec(Name->str(), static_cast<int>(*Port), *Type, Shape);
}

template <typename FloatT>
static std::string formatShortestImpl(FloatT V, int MaxDigits,
                                      const char *Fmt) {
  if (std::isnan(V))
    return std::signbit(V) ? "-nan" : "nan";
  if (std::isinf(V))
    return V < 0 ? "-inf" : "inf";
  char Buf[64];
  for (int Digits = 1; Digits <= MaxDigits; ++Digits) {
    std::snprintf(Buf, sizeof(Buf), Fmt, Digits, static_cast<double>(V));
    FloatT Back;
    if constexpr (std::is_same_v<FloatT, float>)
      Back = std::strtof(Buf, nullptr);
    else
      Back = std::strtod(Buf, nullptr);
    if (std::memcmp(&Back, &V, sizeof(V)) == 0)
      break;
  }
  return Buf;
}

std::string formatShortest(double V) {
  return formatShortestImpl<double>(V, 17, "%.*g");
}
std::string formatShortest(float V) {
  return formatShortestImpl<float>(V, 9, "%.*g");
}

template <typename T> static void printElement(raw_ostream &OS, const char *P) {
  T V;
  std::memcpy(&V, P, sizeof(V));
  if constexpr (std::is_floating_point_v<T>)
    OS << formatShortest(V);
  else if constexpr (std::is_signed_v<T>)
    OS << static_cast<int64_t>(V);
  else
    OS << static_cast<uint64_t>(V);
}

std::string tensorValueToString(const char *Buffer, const TensorSpec &Spec) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (size_t I = 0, E = Spec.getElementCount(); I < E; ++I) {
    if (I)
      OS << ',';
    const char *P = Buffer + I * Spec.getElementByteSize();
    switch (Spec.type()) {
#define MLGO_TENSOR_TYPE_PRINT(CType, Name)                                    \
  case TensorType::Name:                                                       \
    printElement<CType>(OS, P);                                                \
    break;
      MLGO_TENSOR_TYPES(MLGO_TENSOR_TYPE_PRINT)
#undef MLGO_TENSOR_TYPE_PRINT
    case TensorType::Invalid:
      break;
    }
  }
  OS.flush();
  return Out;
}

} // namespace mlgo
