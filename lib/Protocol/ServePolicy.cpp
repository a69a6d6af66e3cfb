//===- lib/Protocol/ServePolicy.cpp - Who answers the compiler ------------===//
//
// The built-in rule policies of `mlgo serve` and the registry that maps a
// spec string to a policy. Every policy writes its advice in the scalar type
// the header declares, so the same rule works for any advice spec.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Protocol/ServePolicy.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ManagedStatic.h"

#include <cstring>
#include <mutex>

using namespace llvm;

namespace mlgo {

ServePolicy::~ServePolicy() = default;

Error ServePolicy::begin(const LogHeader &Header) {
  if (!Header.Advice)
    return makeError("the compiler's header declares no 'advice' "
                     "tensor; is this an interactive stream?");
  return Error::success();
}

void fillTensor(const TensorSpec &Spec, int64_t Value, char *Out) {
  const size_t ElementSize = Spec.getElementByteSize();
  for (size_t I = 0; I < Spec.getElementCount(); ++I) {
    char *P = Out + I * ElementSize;
    switch (Spec.type()) {
#define MLGO_FILL_ELEMENT(CType, Name)                                         \
  case TensorType::Name: {                                                     \
    CType V = static_cast<CType>(Value);                                       \
    std::memcpy(P, &V, sizeof(V));                                             \
    break;                                                                     \
  }
      MLGO_TENSOR_TYPES(MLGO_FILL_ELEMENT)
#undef MLGO_FILL_ELEMENT
    case TensorType::Invalid:
      break;
    }
  }
}

namespace {

/// The same advice for every observation.
class ConstantPolicy final : public ServePolicy {
public:
  explicit ConstantPolicy(int64_t Value) : Value(Value) {}
  Error decide(const LogHeader &Header, const LogRecord &, const LogReader &,
               char *AdviceOut) override {
    fillTensor(*Header.Advice, Value, AdviceOut);
    return Error::success();
  }

private:
  int64_t Value;
};

/// 1, 0, 1, 0, ... over the whole run, across contexts and sessions.
class AlternatePolicy final : public ServePolicy {
public:
  Error decide(const LogHeader &Header, const LogRecord &, const LogReader &,
               char *AdviceOut) override {
    fillTensor(*Header.Advice, Count++ % 2 == 0 ? 1 : 0, AdviceOut);
    return Error::success();
  }

private:
  uint64_t Count = 0;
};

/// Regalloc eviction: the first live range the mask allows, else the
/// candidate (the last column).
class FirstValidPolicy final : public ServePolicy {
public:
  Error begin(const LogHeader &Header) override {
    if (Error E = ServePolicy::begin(Header))
      return E;
    std::optional<size_t> Mask = Header.findFeature("mask");
    if (!Mask)
      return makeError(
          "policy 'first-valid' needs a 'mask' feature (the regalloc "
          "eviction stream of llc -regalloc-enable-advisor=release), but "
          "this stream has " +
          Twine(Header.Features.size()) +
          " features and none is called 'mask'");
    MaskIndex = *Mask;
    return Error::success();
  }

  Error decide(const LogHeader &Header, const LogRecord &,
               const LogReader &Reader, char *AdviceOut) override {
    const TensorSpec &Spec = Header.Features[MaskIndex];
    const char *Data = Reader.getFeatureData(MaskIndex);
    const size_t Count = Spec.getElementCount();
    const size_t ElementSize = Spec.getElementByteSize();
    int64_t Choice = Count ? static_cast<int64_t>(Count - 1) : 0;
    for (size_t I = 0; I < Count; ++I) {
      const char *P = Data + I * ElementSize;
      bool NonZero = false;
      for (size_t B = 0; B < ElementSize; ++B)
        NonZero |= P[B] != 0;
      if (NonZero) {
        Choice = static_cast<int64_t>(I);
        break;
      }
    }
    fillTensor(*Header.Advice, Choice, AdviceOut);
    return Error::success();
  }

private:
  size_t MaskIndex = 0;
};

struct Registry {
  std::mutex Lock;
  StringMap<PolicyFactory> Factories;

  Registry() {
    auto NoArg =
        [](StringRef Name,
           std::function<std::unique_ptr<ServePolicy>()> F) -> PolicyFactory {
      return [Name = Name.str(),
              F](StringRef Arg) -> Expected<std::unique_ptr<ServePolicy>> {
        if (!Arg.empty())
          return makeError("policy '" + Name + "' takes no argument");
        return F();
      };
    };
    Factories["always"] =
        NoArg("always", [] { return std::make_unique<ConstantPolicy>(1); });
    Factories["never"] =
        NoArg("never", [] { return std::make_unique<ConstantPolicy>(0); });
    Factories["alternate"] =
        NoArg("alternate", [] { return std::make_unique<AlternatePolicy>(); });
    Factories["first-valid"] = NoArg(
        "first-valid", [] { return std::make_unique<FirstValidPolicy>(); });
  }
};

Registry &getRegistry() {
  static Registry R;
  return R;
}

} // namespace

void registerPolicyKind(StringRef Name, PolicyFactory Factory) {
  Registry &R = getRegistry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.Factories[Name] = std::move(Factory);
}

Expected<std::unique_ptr<ServePolicy>> createPolicy(StringRef Spec) {
  auto [Name, Arg] = Spec.split('=');
  Registry &R = getRegistry();
  PolicyFactory Factory;
  std::string Known;
  {
    std::lock_guard<std::mutex> Guard(R.Lock);
    auto It = R.Factories.find(Name);
    if (It != R.Factories.end())
      Factory = It->second;
    std::vector<StringRef> Names;
    for (const auto &Entry : R.Factories)
      Names.push_back(Entry.getKey());
    llvm::sort(Names);
    for (StringRef N : Names)
      Known += (Known.empty() ? "" : ", ") + N.str();
  }
  if (!Factory) {
    return makeError("unknown policy '" + Spec + "' (known: " + Known + ")");
  }
  return Factory(Arg);
}

} // namespace mlgo
