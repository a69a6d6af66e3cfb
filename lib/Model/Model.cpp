//===- Model.cpp - Reading, validating and writing text models ------------===//
//
// The JSON model format of mlgo/Model/Model.h. Parsing walks the JSON tree
// keeping the path of the value being read ("layers[1].weights[3]"), so that
// every error names the file, the place and the problem. Numeric invariants
// (finite weights, sorted boundaries, ...) live in Model::validate(), which
// parse() calls, so a model built in memory is checked by the same code.
// Writing is hand-rolled rather than json::OStream so that a weight row stays
// on one line (diffable) and numbers use their shortest exact spelling.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/Model.h"

#include "mlgo/Model/InlineFeatureNames.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/JSONInteger.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace mlgo {

//===----------------------------------------------------------------------===//
// Names and number formatting
//===----------------------------------------------------------------------===//

StringRef toString(PreprocessStep::Op Op) {
  switch (Op) {
  case PreprocessStep::Op::Log1p:
    return "log1p";
  case PreprocessStep::Op::Standardize:
    return "standardize";
  case PreprocessStep::Op::Quantile:
    return "quantile";
  case PreprocessStep::Op::Sqrt:
    return "sqrt";
  case PreprocessStep::Op::Square:
    return "square";
  case PreprocessStep::Op::Clamp:
    return "clamp";
  case PreprocessStep::Op::NanTo:
    return "nan_to";
  }
  return "?";
}

static std::optional<PreprocessStep::Op> parseOp(StringRef S) {
  for (auto Op : {PreprocessStep::Op::Log1p, PreprocessStep::Op::Standardize,
                  PreprocessStep::Op::Quantile, PreprocessStep::Op::Sqrt,
                  PreprocessStep::Op::Square, PreprocessStep::Op::Clamp,
                  PreprocessStep::Op::NanTo})
    if (toString(Op) == S)
      return Op;
  return std::nullopt;
}

StringRef toString(Activation A) {
  switch (A) {
  case Activation::Linear:
    return "linear";
  case Activation::Relu:
    return "relu";
  case Activation::Tanh:
    return "tanh";
  case Activation::Sigmoid:
    return "sigmoid";
  case Activation::Exp:
    return "exp";
  }
  return "?";
}

static std::optional<Activation> parseActivation(StringRef S) {
  for (auto A : {Activation::Linear, Activation::Relu, Activation::Tanh,
                 Activation::Sigmoid, Activation::Exp})
    if (toString(A) == S)
      return A;
  return std::nullopt;
}

bool PreprocessStep::operator==(const PreprocessStep &O) const {
  if (TheOp != O.TheOp)
    return false;
  auto Same = [](double A, double B) {
    return std::memcmp(&A, &B, sizeof(A)) == 0;
  };
  switch (TheOp) {
  case Op::Standardize:
    return Same(Mean, O.Mean) && Same(StdDev, O.StdDev);
  case Op::Quantile:
    return Boundaries.size() == O.Boundaries.size() &&
           std::equal(Boundaries.begin(), Boundaries.end(),
                      O.Boundaries.begin(), Same);
  case Op::Clamp:
    return Same(Min, O.Min) && Same(Max, O.Max);
  case Op::NanTo:
    return Same(Value, O.Value);
  default:
    return true;
  }
}

std::string formatModelFloat(float V) {
  if (V == 0)
    return std::signbit(V) ? "-0.0" : "0";
  if (!std::isfinite(V))
    return formatShortest(V);
  // JSON numbers are read as double and then rounded to float; take the
  // fewest digits that survive that double rounding. 17 digits always do:
  // every float is a double, and 17 digits identify a double.
  char Buf[64];
  for (int Digits = 1; Digits <= 17; ++Digits) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Digits, static_cast<double>(V));
    float Back = static_cast<float>(std::strtod(Buf, nullptr));
    if (std::memcmp(&Back, &V, sizeof(V)) == 0)
      break;
  }
  return Buf;
}

std::string formatModelDouble(double V) {
  if (V == 0)
    return std::signbit(V) ? "-0.0" : "0";
  return formatShortest(V);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

/// Walks the JSON tree of a model; every error carries the file name and
/// the JSON path of the offending value.
class ModelParser {
public:
  explicit ModelParser(StringRef File) : File(File) {}

  Error parseModel(const json::Value &Root, Model &M);

private:
  StringRef File;

  Error fail(const Twine &Path, const Twine &Msg) const {
    std::string P = Path.str();
    return makeError(File + ": " + (P.empty() ? "" : P + ": ") + Msg);
  }

  static std::string key(const Twine &Path, StringRef Key) {
    std::string P = Path.str();
    return P.empty() ? Key.str() : P + "." + Key.str();
  }
  static std::string index(const Twine &Path, size_t I) {
    return (Path + "[" + Twine(I) + "]").str();
  }

  Error getObject(const json::Value &V, const Twine &Path,
                  const json::Object *&Out) const {
    Out = V.getAsObject();
    if (!Out)
      return fail(Path, "expected an object");
    return Error::success();
  }

  /// Rejects keys outside \p Allowed (a typo must not silently change a
  /// model's meaning) and reports the first missing one of \p Required.
  Error checkKeys(const json::Object &O, const Twine &Path,
                  ArrayRef<StringRef> Required,
                  ArrayRef<StringRef> Optional) const {
    std::vector<std::string> Keys;
    for (const auto &KV : O)
      Keys.push_back(KV.first.str());
    llvm::sort(Keys);
    for (const std::string &K : Keys)
      if (!is_contained(Required, K) && !is_contained(Optional, K))
        return fail(key(Path, K), "unknown key");
    for (StringRef K : Required)
      if (!O.get(K))
        return fail(Path, "missing key '" + K + "'");
    return Error::success();
  }

  Error getString(const json::Object &O, StringRef Key, const Twine &Path,
                  std::string &Out) const {
    const json::Value *V = O.get(Key);
    if (!V)
      return Error::success();
    std::optional<StringRef> S = V->getAsString();
    if (!S)
      return fail(key(Path, Key), "expected a string");
    Out = S->str();
    return Error::success();
  }

  Error getArray(const json::Value &V, const Twine &Path,
                 const json::Array *&Out) const {
    Out = V.getAsArray();
    if (!Out)
      return fail(Path, "expected an array");
    return Error::success();
  }

  /// A number, or a string holding a hexadecimal float, "nan" or "inf".
  Error getDouble(const json::Value &V, const Twine &Path, double &Out) const {
    if (std::optional<double> D = V.getAsNumber()) {
      Out = *D;
      return Error::success();
    }
    if (std::optional<StringRef> S = V.getAsString()) {
      std::string Str = S->str();
      char *End = nullptr;
      Out = std::strtod(Str.c_str(), &End);
      if (!Str.empty() && End == Str.c_str() + Str.size())
        return Error::success();
      return fail(Path, "'" + Str + "' is not a number");
    }
    return fail(Path, "expected a number");
  }

  Error getFloat(const json::Value &V, const Twine &Path, float &Out) const {
    if (std::optional<StringRef> S = V.getAsString()) {
      // Parse strings directly as float so hex floats are exact.
      std::string Str = S->str();
      char *End = nullptr;
      Out = std::strtof(Str.c_str(), &End);
      if (!Str.empty() && End == Str.c_str() + Str.size())
        return Error::success();
      return fail(Path, "'" + Str + "' is not a number");
    }
    double D;
    if (Error E = getDouble(V, Path, D))
      return E;
    if (std::isfinite(D) && std::isinf(static_cast<float>(D)))
      return fail(Path, formatShortest(D) + " is out of float range");
    Out = static_cast<float>(D);
    return Error::success();
  }

  Error getFloats(const json::Value &V, const Twine &Path,
                  std::vector<float> &Out) const {
    const json::Array *A;
    if (Error E = getArray(V, Path, A))
      return E;
    for (size_t I = 0; I < A->size(); ++I) {
      float F;
      if (Error E = getFloat((*A)[I], index(Path, I), F))
        return E;
      Out.push_back(F);
    }
    return Error::success();
  }

  Error getSize(const json::Object &O, StringRef Key, const Twine &Path,
                size_t &Out) const {
    std::optional<int64_t> I = getInt64(O, Key);
    if (!I || *I <= 0)
      return fail(key(Path, Key), "expected a positive integer");
    Out = static_cast<size_t>(*I);
    return Error::success();
  }

  Error getSpec(const json::Value &V, const Twine &Path,
                std::optional<TensorSpec> &Out) const {
    Expected<TensorSpec> S = TensorSpec::fromJSON(V);
    if (!S)
      return fail(Path, toString(S.takeError()));
    Out = std::move(*S);
    return Error::success();
  }

  Error parseMetadata(const json::Value &V, ModelMetadata &MD) const;
  Error parseHeuristic(const json::Value &V, HeuristicSettings &H) const;
  Error parseStep(const json::Value &V, const Twine &Path,
                  PreprocessStep &S) const;
  Error parseInput(const json::Value &V, const Twine &Path,
                   std::optional<ModelInput> &In) const;
  Error parseLayer(const json::Value &V, const Twine &Path,
                   DenseLayer &L) const;
  Error parseOutput(const json::Value &V, Model &M) const;
};

Error ModelParser::parseHeuristic(const json::Value &V,
                                  HeuristicSettings &H) const {
  const json::Object *O;
  if (Error E = getObject(V, "heuristic", O))
    return E;
  if (Error E = checkKeys(*O, "heuristic", {}, {"inline_threshold"}))
    return E;
  if (const json::Value *T = O->get("inline_threshold")) {
    std::optional<int64_t> I = getAsInt64(*T);
    if (!I || *I < INT32_MIN || *I > INT32_MAX)
      return fail("heuristic.inline_threshold", "expected a 32-bit integer");
    H.InlineThreshold = static_cast<int32_t>(*I);
  }
  return Error::success();
}

Error ModelParser::parseMetadata(const json::Value &V,
                                 ModelMetadata &MD) const {
  const json::Object *O;
  if (Error E = getObject(V, "metadata", O))
    return E;
  if (Error E = checkKeys(*O, "metadata", {"name"},
                          {"description", "llvm_version", "feature_set",
                           "recipe", "corpus_hash", "seed"}))
    return E;
  for (auto [Key, Field] :
       {std::pair<StringRef, std::string *>{"name", &MD.Name},
        {"description", &MD.Description},
        {"llvm_version", &MD.LLVMVersion},
        {"feature_set", &MD.FeatureSet},
        {"recipe", &MD.Recipe},
        {"corpus_hash", &MD.CorpusHash}})
    if (Error E = getString(*O, Key, "metadata", *Field))
      return E;
  if (const json::Value *Seed = O->get("seed")) {
    std::optional<int64_t> S = getAsInt64(*Seed);
    std::optional<uint64_t> U = Seed->getAsUINT64();
    if ((!S || *S < 0) && !U)
      return fail("metadata.seed", "expected a non-negative integer");
    MD.Seed = U ? *U : static_cast<uint64_t>(*S);
  }
  return Error::success();
}

Error ModelParser::parseStep(const json::Value &V, const Twine &Path,
                             PreprocessStep &S) const {
  const json::Object *O;
  if (Error E = getObject(V, Path, O))
    return E;
  std::optional<StringRef> OpName = O->getString("op");
  if (!OpName)
    return fail(key(Path, "op"), "expected a string naming the step");
  std::optional<PreprocessStep::Op> Op = parseOp(*OpName);
  if (!Op)
    return fail(key(Path, "op"),
                "unknown preprocessing '" + *OpName +
                    "' (expected one of log1p, standardize, quantile, sqrt, "
                    "square, clamp, nan_to)");
  S.TheOp = *Op;
  switch (*Op) {
  case PreprocessStep::Op::Standardize:
    if (Error E = checkKeys(*O, Path, {"op", "mean", "stddev"}, {}))
      return E;
    if (Error E = getDouble(*O->get("mean"), key(Path, "mean"), S.Mean))
      return E;
    return getDouble(*O->get("stddev"), key(Path, "stddev"), S.StdDev);
  case PreprocessStep::Op::Quantile: {
    if (Error E = checkKeys(*O, Path, {"op", "boundaries"}, {}))
      return E;
    std::string BPath = key(Path, "boundaries");
    const json::Array *A;
    if (Error E = getArray(*O->get("boundaries"), BPath, A))
      return E;
    for (size_t I = 0; I < A->size(); ++I) {
      double D;
      if (Error E = getDouble((*A)[I], index(BPath, I), D))
        return E;
      S.Boundaries.push_back(D);
    }
    return Error::success();
  }
  case PreprocessStep::Op::Clamp:
    if (Error E = checkKeys(*O, Path, {"op", "min", "max"}, {}))
      return E;
    if (Error E = getDouble(*O->get("min"), key(Path, "min"), S.Min))
      return E;
    return getDouble(*O->get("max"), key(Path, "max"), S.Max);
  case PreprocessStep::Op::NanTo:
    if (Error E = checkKeys(*O, Path, {"op", "value"}, {}))
      return E;
    return getDouble(*O->get("value"), key(Path, "value"), S.Value);
  default:
    return checkKeys(*O, Path, {"op"}, {});
  }
}

Error ModelParser::parseInput(const json::Value &V, const Twine &Path,
                              std::optional<ModelInput> &In) const {
  const json::Object *O;
  if (Error E = getObject(V, Path, O))
    return E;
  if (Error E = checkKeys(*O, Path, {"spec", "preprocess"}, {}))
    return E;
  std::optional<TensorSpec> Spec;
  if (Error E = getSpec(*O->get("spec"), key(Path, "spec"), Spec))
    return E;
  In.emplace(ModelInput{*Spec, {}});
  std::string PPath = key(Path, "preprocess");
  const json::Array *Pipes;
  if (Error E = getArray(*O->get("preprocess"), PPath, Pipes))
    return E;
  for (size_t P = 0; P < Pipes->size(); ++P) {
    std::string PipePath = index(PPath, P);
    const json::Array *Steps;
    if (Error E = getArray((*Pipes)[P], PipePath, Steps))
      return E;
    Pipeline Pipe;
    for (size_t S = 0; S < Steps->size(); ++S) {
      PreprocessStep Step;
      if (Error E = parseStep((*Steps)[S], index(PipePath, S), Step))
        return E;
      Pipe.push_back(std::move(Step));
    }
    In->Pipelines.push_back(std::move(Pipe));
  }
  return Error::success();
}

Error ModelParser::parseLayer(const json::Value &V, const Twine &Path,
                              DenseLayer &L) const {
  const json::Object *O;
  if (Error E = getObject(V, Path, O))
    return E;
  if (Error E = checkKeys(*O, Path,
                          {"in", "out", "activation", "weights", "bias"}, {}))
    return E;
  if (Error E = getSize(*O, "in", Path, L.In))
    return E;
  if (Error E = getSize(*O, "out", Path, L.Out))
    return E;
  std::optional<StringRef> Act = O->getString("activation");
  std::optional<Activation> A;
  if (Act)
    A = parseActivation(*Act);
  if (!A)
    return fail(key(Path, "activation"),
                "unknown activation" + (Act ? " '" + *Act + "'" : Twine()) +
                    " (expected one of linear, relu, tanh, sigmoid, exp)");
  L.Act = *A;
  std::string WPath = key(Path, "weights");
  const json::Array *Rows;
  if (Error E = getArray(*O->get("weights"), WPath, Rows))
    return E;
  if (Rows->size() != L.Out)
    return fail(WPath, "has " + Twine(Rows->size()) + " rows, expected " +
                           Twine(L.Out) + " (\"out\")");
  for (size_t R = 0; R < Rows->size(); ++R) {
    std::string RPath = index(WPath, R);
    size_t Before = L.Weights.size();
    if (Error E = getFloats((*Rows)[R], RPath, L.Weights))
      return E;
    if (L.Weights.size() - Before != L.In)
      return fail(RPath, "has " + Twine(L.Weights.size() - Before) +
                             " weights, expected " + Twine(L.In) + " (\"in\")");
  }
  std::string BPath = key(Path, "bias");
  if (Error E = getFloats(*O->get("bias"), BPath, L.Bias))
    return E;
  if (L.Bias.size() != L.Out)
    return fail(BPath, "has " + Twine(L.Bias.size()) + " values, expected " +
                           Twine(L.Out) + " (\"out\")");
  return Error::success();
}

Error ModelParser::parseOutput(const json::Value &V, Model &M) const {
  const json::Object *O;
  if (Error E = getObject(V, "output", O))
    return E;
  if (Error E = checkKeys(*O, "output", {"spec", "decision"}, {}))
    return E;
  std::optional<TensorSpec> Spec;
  if (Error E = getSpec(*O->get("spec"), "output.spec", Spec))
    return E;
  M.OutputSpec = *Spec;
  const json::Object *D;
  if (Error E = getObject(*O->get("decision"), "output.decision", D))
    return E;
  std::optional<StringRef> Rule = D->getString("rule");
  if (Rule && *Rule == "threshold") {
    M.Decision.TheKind = DecisionRule::Kind::Threshold;
    if (Error E = checkKeys(*D, "output.decision", {"rule", "threshold"}, {}))
      return E;
    return getFloat(*D->get("threshold"), "output.decision.threshold",
                    M.Decision.Threshold);
  }
  if (Rule && *Rule == "sample") {
    M.Decision.TheKind = DecisionRule::Kind::Sample;
    if (Error E = checkKeys(*D, "output.decision", {"rule", "temperature"}, {}))
      return E;
    return getFloat(*D->get("temperature"), "output.decision.temperature",
                    M.Decision.Temperature);
  }
  if (Rule && *Rule == "masked_argmax") {
    M.Decision.TheKind = DecisionRule::Kind::MaskedArgmax;
    if (Error E =
            checkKeys(*D, "output.decision", {"rule", "columns", "mask"}, {}))
      return E;
    std::optional<int64_t> C = getAsInt64(*D->get("columns"));
    if (!C || *C < 1 || *C > 4096)
      return fail("output.decision.columns",
                  "expected an integer from 1 to 4096");
    M.Decision.Columns = static_cast<size_t>(*C);
    std::optional<StringRef> Mask = D->getString("mask");
    if (!Mask)
      return fail("output.decision.mask", "expected the name of an input");
    M.Decision.MaskName = Mask->str();
    return Error::success();
  }
  return fail("output.decision.rule",
              "unknown decision rule" + (Rule ? " '" + *Rule + "'" : Twine()) +
                  " (expected threshold, sample or masked_argmax)");
}

Error ModelParser::parseModel(const json::Value &Root, Model &M) {
  const json::Object *O;
  if (Error E = getObject(Root, "", O))
    return E;
  if (Error E = checkKeys(
          *O, "",
          {"format", "version", "metadata", "inputs", "layers", "output"},
          {"heuristic"}))
    return E;
  std::optional<StringRef> Format = O->getString("format");
  if (!Format || *Format != "mlgo-model")
    return fail("format", "expected \"mlgo-model\"");
  std::optional<int64_t> Version = getInt64(*O, "version");
  if (!Version)
    return fail("version", "expected an integer");
  if (*Version != ModelFormatVersion)
    return fail("version", "unsupported format version " + Twine(*Version) +
                               " (this mlgo reads version " +
                               Twine(ModelFormatVersion) + ")");
  if (Error E = parseMetadata(*O->get("metadata"), M.Metadata))
    return E;
  if (const json::Value *H = O->get("heuristic"))
    if (Error E = parseHeuristic(*H, M.Heuristic))
      return E;
  const json::Array *Inputs;
  if (Error E = getArray(*O->get("inputs"), "inputs", Inputs))
    return E;
  for (size_t I = 0; I < Inputs->size(); ++I) {
    std::optional<ModelInput> In;
    if (Error E = parseInput((*Inputs)[I], index("inputs", I), In))
      return E;
    M.Inputs.push_back(std::move(*In));
  }
  const json::Array *Layers;
  if (Error E = getArray(*O->get("layers"), "layers", Layers))
    return E;
  for (size_t I = 0; I < Layers->size(); ++I) {
    DenseLayer L;
    if (Error E = parseLayer((*Layers)[I], index("layers", I), L))
      return E;
    M.Layers.push_back(std::move(L));
  }
  return parseOutput(*O->get("output"), M);
}

} // namespace

Expected<Model> Model::parse(StringRef JSONText, StringRef FileName) {
  Expected<json::Value> Root = parseJSON(JSONText);
  if (!Root)
    return makeError(FileName +
                     ": invalid JSON: " + toString(Root.takeError()));
  Model M;
  if (Error E = ModelParser(FileName).parseModel(*Root, M))
    return E;
  if (Error E = M.validate(FileName))
    return E;
  return M;
}

Expected<Model> Model::load(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(),
                             "cannot read model '" + Path +
                                 "': " + Buf.getError().message());
  return parse((*Buf)->getBuffer(), Path);
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

static const char *describeNonFinite(double V) {
  return std::isnan(V) ? "NaN" : "infinite";
}

Error Model::validate(StringRef FileName) const {
  auto Fail = [&](const Twine &Path, const Twine &Msg) -> Error {
    return makeError(FileName + ": " + Path + ": " + Msg);
  };
  if (Metadata.Name.empty())
    return Fail("metadata.name", "must not be empty");
  if (Inputs.empty())
    return Fail("inputs", "a model needs at least one input");
  if (Heuristic.InlineThreshold &&
      llvm::none_of(Inputs, [](const ModelInput &In) {
        return In.Spec.name() == InlineDefaultFeatureName;
      }))
    return Fail("heuristic.inline_threshold",
                "sets the heuristic behind the input '" +
                    InlineDefaultFeatureName +
                    "', which the model does not read");
  for (size_t I = 0; I < Inputs.size(); ++I) {
    const ModelInput &In = Inputs[I];
    std::string IPath = ("inputs[" + Twine(I) + "]").str();
    for (size_t J = 0; J < I; ++J)
      if (Inputs[J].Spec.name() == In.Spec.name())
        return Fail(IPath + ".spec.name", "duplicate input '" + In.Spec.name() +
                                              "' (also inputs[" + Twine(J) +
                                              "])");
    if (In.Spec.getElementCount() == 0)
      return Fail(IPath + ".spec.shape", "input has no elements");
    for (size_t P = 0; P < In.Pipelines.size(); ++P)
      for (size_t S = 0; S < In.Pipelines[P].size(); ++S) {
        const PreprocessStep &Step = In.Pipelines[P][S];
        std::string SPath =
            (IPath + ".preprocess[" + Twine(P) + "][" + Twine(S) + "]").str();
        switch (Step.TheOp) {
        case PreprocessStep::Op::Standardize:
          if (!std::isfinite(Step.Mean))
            return Fail(SPath + ".mean",
                        Twine(describeNonFinite(Step.Mean)) + " mean");
          if (!std::isfinite(Step.StdDev))
            return Fail(SPath + ".stddev",
                        Twine(describeNonFinite(Step.StdDev)) + " stddev");
          if (!(Step.StdDev > 0))
            return Fail(SPath + ".stddev", "stddev must be positive, not " +
                                               formatModelDouble(Step.StdDev));
          break;
        case PreprocessStep::Op::Quantile:
          if (Step.Boundaries.empty())
            return Fail(SPath + ".boundaries", "no boundaries");
          for (size_t B = 0; B < Step.Boundaries.size(); ++B) {
            std::string BPath = (SPath + ".boundaries[" + Twine(B) + "]").str();
            if (!std::isfinite(Step.Boundaries[B]))
              return Fail(BPath, Twine(describeNonFinite(Step.Boundaries[B])) +
                                     " boundary");
            if (B && Step.Boundaries[B] < Step.Boundaries[B - 1])
              return Fail(BPath, "boundaries must be sorted ascending, but " +
                                     formatModelDouble(Step.Boundaries[B]) +
                                     " < " +
                                     formatModelDouble(Step.Boundaries[B - 1]));
          }
          break;
        case PreprocessStep::Op::Clamp:
          if (!std::isfinite(Step.Min) || !std::isfinite(Step.Max))
            return Fail(SPath, "clamp bounds must be finite");
          if (!(Step.Min <= Step.Max))
            return Fail(SPath, "clamp min " + formatModelDouble(Step.Min) +
                                   " exceeds max " +
                                   formatModelDouble(Step.Max));
          break;
        case PreprocessStep::Op::NanTo:
          if (!std::isfinite(Step.Value))
            return Fail(SPath + ".value", Twine(describeNonFinite(Step.Value)) +
                                              " replacement value");
          break;
        default:
          break;
        }
      }
  }
  if (Decision.isPerColumn()) {
    for (size_t I = 0; I < Inputs.size(); ++I) {
      size_t N = Inputs[I].Spec.getElementCount();
      if (N != 1 && N != Decision.Columns)
        return Fail("inputs[" + Twine(I) + "].spec.shape",
                    "input '" + Inputs[I].Spec.name() + "' has " + Twine(N) +
                        " elements; a model with " + Twine(Decision.Columns) +
                        " columns reads inputs of " + Twine(Decision.Columns) +
                        " elements or 1");
    }
    int Mask = getMaskInputIndex();
    if (Mask < 0)
      return Fail("output.decision.mask",
                  "no input is called '" + Decision.MaskName + "'");
    const TensorSpec &MS = Inputs[Mask].Spec;
    if (MS.type() != TensorType::Int64 ||
        MS.getElementCount() != Decision.Columns)
      return Fail("output.decision.mask",
                  "the mask '" + Decision.MaskName + "' must be int64_t with " +
                      Twine(Decision.Columns) + " elements");
    if (OutputSpec.type() != TensorType::Int64)
      return Fail("output.spec.type",
                  "a masked_argmax decision is an index: int64_t");
  }
  if (Layers.empty())
    return Fail("layers", "a model needs at least one layer");
  size_t Expected = getNumMLPInputs();
  for (size_t L = 0; L < Layers.size(); ++L) {
    const DenseLayer &Layer = Layers[L];
    std::string LPath = ("layers[" + Twine(L) + "]").str();
    if (Layer.In != Expected)
      return Fail(LPath + ".in",
                  "layer takes " + Twine(Layer.In) + " inputs but " +
                      (L ? "layers[" + Twine(L - 1) + "] produces "
                         : Twine("the preprocessed inputs provide ")) +
                      Twine(Expected));
    if (Layer.Weights.size() != Layer.In * Layer.Out)
      return Fail(LPath + ".weights", "expected " + Twine(Layer.Out) + "x" +
                                          Twine(Layer.In) + " weights");
    if (Layer.Bias.size() != Layer.Out)
      return Fail(LPath + ".bias", "expected " + Twine(Layer.Out) + " values");
    for (size_t O = 0; O < Layer.Out; ++O)
      for (size_t I = 0; I < Layer.In; ++I)
        if (!std::isfinite(Layer.weight(O, I)))
          return Fail(LPath + ".weights[" + Twine(O) + "][" + Twine(I) + "]",
                      Twine(describeNonFinite(Layer.weight(O, I))) + " weight");
    for (size_t O = 0; O < Layer.Out; ++O)
      if (!std::isfinite(Layer.Bias[O]))
        return Fail(LPath + ".bias[" + Twine(O) + "]",
                    Twine(describeNonFinite(Layer.Bias[O])) + " bias");
    Expected = Layer.Out;
  }
  if (Expected != 1)
    return Fail("layers[" + Twine(Layers.size() - 1) + "].out",
                "the last layer must produce one value (the logit), not " +
                    Twine(Expected));
  if (OutputSpec.getElementCount() != 1)
    return Fail("output.spec.shape", "the decision tensor must have exactly "
                                     "one element");
  if (Decision.TheKind == DecisionRule::Kind::Threshold &&
      !std::isfinite(Decision.Threshold))
    return Fail("output.decision.threshold", "threshold must be finite");
  if (Decision.TheKind == DecisionRule::Kind::Sample &&
      !(std::isfinite(Decision.Temperature) && Decision.Temperature > 0))
    return Fail("output.decision.temperature",
                "temperature must be positive and finite");
  return Error::success();
}

size_t Model::getNumMLPInputs() const {
  size_t N = 0;
  for (const ModelInput &In : Inputs)
    N += In.getNumValues(Decision.isPerColumn());
  return N;
}

int Model::getMaskInputIndex() const {
  if (!Decision.isPerColumn())
    return -1;
  for (size_t I = 0; I < Inputs.size(); ++I)
    if (Inputs[I].Spec.name() == Decision.MaskName)
      return static_cast<int>(I);
  return -1;
}

size_t Model::getNumParameters() const {
  size_t N = 0;
  for (const DenseLayer &L : Layers)
    N += L.Weights.size() + L.Bias.size();
  return N;
}

std::vector<TensorSpec> Model::getInputSpecs() const {
  std::vector<TensorSpec> Specs;
  for (const ModelInput &In : Inputs)
    Specs.push_back(In.Spec);
  return Specs;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static void writeString(raw_ostream &OS, StringRef S) {
  OS << json::Value(S.str());
}

static void writeStep(raw_ostream &OS, const PreprocessStep &S) {
  OS << "{\"op\": \"" << toString(S.TheOp) << '"';
  switch (S.TheOp) {
  case PreprocessStep::Op::Standardize:
    OS << ", \"mean\": " << formatModelDouble(S.Mean)
       << ", \"stddev\": " << formatModelDouble(S.StdDev);
    break;
  case PreprocessStep::Op::Quantile:
    OS << ", \"boundaries\": [";
    for (size_t I = 0; I < S.Boundaries.size(); ++I)
      OS << (I ? ", " : "") << formatModelDouble(S.Boundaries[I]);
    OS << ']';
    break;
  case PreprocessStep::Op::Clamp:
    OS << ", \"min\": " << formatModelDouble(S.Min)
       << ", \"max\": " << formatModelDouble(S.Max);
    break;
  case PreprocessStep::Op::NanTo:
    OS << ", \"value\": " << formatModelDouble(S.Value);
    break;
  default:
    break;
  }
  OS << '}';
}

static void writeFloats(raw_ostream &OS, const float *V, size_t N) {
  OS << '[';
  for (size_t I = 0; I < N; ++I)
    OS << (I ? ", " : "") << formatModelFloat(V[I]);
  OS << ']';
}

void Model::write(raw_ostream &OS) const {
  OS << "{\n  \"format\": \"mlgo-model\",\n  \"version\": "
     << ModelFormatVersion << ",\n  \"metadata\": {\n    \"name\": ";
  writeString(OS, Metadata.Name);
  for (auto [Key, Value] : {std::pair<StringRef, const std::string *>{
                                "description", &Metadata.Description},
                            {"llvm_version", &Metadata.LLVMVersion},
                            {"feature_set", &Metadata.FeatureSet},
                            {"recipe", &Metadata.Recipe},
                            {"corpus_hash", &Metadata.CorpusHash}}) {
    OS << ",\n    \"" << Key << "\": ";
    writeString(OS, *Value);
  }
  OS << ",\n    \"seed\": " << Metadata.Seed << "\n  },";
  if (Heuristic.InlineThreshold)
    OS << "\n  \"heuristic\": {\"inline_threshold\": "
       << *Heuristic.InlineThreshold << "},";
  OS << "\n  \"inputs\": [";
  for (size_t I = 0; I < Inputs.size(); ++I) {
    const ModelInput &In = Inputs[I];
    OS << (I ? "," : "") << "\n    {\"spec\": " << In.Spec.toJSONString()
       << ",\n     \"preprocess\": [";
    for (size_t P = 0; P < In.Pipelines.size(); ++P) {
      OS << (P ? ", " : "") << '[';
      for (size_t S = 0; S < In.Pipelines[P].size(); ++S) {
        OS << (S ? ", " : "");
        writeStep(OS, In.Pipelines[P][S]);
      }
      OS << ']';
    }
    OS << "]}";
  }
  OS << "\n  ],\n  \"layers\": [";
  for (size_t L = 0; L < Layers.size(); ++L) {
    const DenseLayer &Layer = Layers[L];
    OS << (L ? "," : "") << "\n    {\"in\": " << Layer.In
       << ", \"out\": " << Layer.Out << ", \"activation\": \""
       << toString(Layer.Act) << "\",\n     \"weights\": [";
    for (size_t O = 0; O < Layer.Out; ++O) {
      OS << (O ? ",\n       " : "\n       ");
      writeFloats(OS, Layer.Weights.data() + O * Layer.In, Layer.In);
    }
    OS << "],\n     \"bias\": ";
    writeFloats(OS, Layer.Bias.data(), Layer.Bias.size());
    OS << '}';
  }
  OS << "\n  ],\n  \"output\": {\n    \"spec\": " << OutputSpec.toJSONString()
     << ",\n    \"decision\": ";
  if (Decision.TheKind == DecisionRule::Kind::Threshold)
    OS << "{\"rule\": \"threshold\", \"threshold\": "
       << formatModelFloat(Decision.Threshold) << '}';
  else if (Decision.isPerColumn())
    OS << "{\"rule\": \"masked_argmax\", \"columns\": " << Decision.Columns
       << ", \"mask\": " << json::Value(Decision.MaskName) << '}';
  else
    OS << "{\"rule\": \"sample\", \"temperature\": "
       << formatModelFloat(Decision.Temperature) << '}';
  OS << "\n  }\n}\n";
}

std::string Model::toJSONString() const {
  std::string S;
  raw_string_ostream OS(S);
  write(OS);
  OS.flush();
  return S;
}

Error Model::save(StringRef Path) const {
  // Whole or not at all: a model cut short by a full disk or a kill would
  // be read later as a malformed model.
  return writeFileAtomically(Path, toJSONString());
}

} // namespace mlgo
