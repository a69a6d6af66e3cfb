//===- ModelSummary.cpp - Human-readable views of text models -------------===//
//
// `mlgo model show` (a one-screen summary: metadata, inputs with their
// preprocessing, layer shapes and weight statistics, the decision rule) and
// `mlgo model diff` (what changed between two models, field by field, and
// for weights how many changed and by how much).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/Model.h"

#include "mlgo/Model/InlineFeatureNames.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace llvm;

namespace mlgo {

static std::string describeSpec(const TensorSpec &S) {
  std::string Out = toString(S.type()).str() + " [";
  for (size_t I = 0; I < S.shape().size(); ++I)
    Out += (I ? "," : "") + std::to_string(S.shape()[I]);
  return Out + "]";
}

static std::string describeStep(const PreprocessStep &S) {
  std::string Out = toString(S.TheOp).str();
  switch (S.TheOp) {
  case PreprocessStep::Op::Standardize:
    return Out + "(mean " + formatModelDouble(S.Mean) + ", stddev " +
           formatModelDouble(S.StdDev) + ")";
  case PreprocessStep::Op::Quantile:
    return Out + "(" + std::to_string(S.Boundaries.size()) + " boundaries, " +
           formatModelDouble(S.Boundaries.front()) + ".." +
           formatModelDouble(S.Boundaries.back()) + ")";
  case PreprocessStep::Op::Clamp:
    return Out + "(" + formatModelDouble(S.Min) + ", " +
           formatModelDouble(S.Max) + ")";
  case PreprocessStep::Op::NanTo:
    return Out + "(" + formatModelDouble(S.Value) + ")";
  default:
    return Out;
  }
}

static std::string describePipelines(const std::vector<Pipeline> &Ps) {
  if (Ps.empty())
    return "unused";
  std::string Out;
  for (size_t P = 0; P < Ps.size(); ++P) {
    Out += P ? "; " : "";
    if (Ps[P].empty())
      Out += "raw";
    for (size_t S = 0; S < Ps[P].size(); ++S)
      Out += (S ? " -> " : "") + describeStep(Ps[P][S]);
  }
  return Out;
}

static std::string describeDecision(const DecisionRule &D) {
  if (D.TheKind == DecisionRule::Kind::Threshold)
    return "1 if logit > " + formatModelFloat(D.Threshold);
  if (D.isPerColumn())
    return "the column of " + std::to_string(D.Columns) +
           " with the largest logit among those '" + D.MaskName + "' allows";
  return "sample with P(1) = sigmoid(logit / " +
         formatModelFloat(D.Temperature) + ")";
}

static std::string describeLayer(const DenseLayer &L) {
  return std::to_string(L.In) + " -> " + std::to_string(L.Out) + ", " +
         toString(L.Act).str();
}

void Model::printSummary(raw_ostream &OS) const {
  OS << "model: " << Metadata.Name << " (format version " << ModelFormatVersion
     << ")\n";
  if (!Metadata.Description.empty())
    OS << "description: " << Metadata.Description << "\n";
  auto Field = [&](StringRef Name, const std::string &V) {
    if (!V.empty())
      OS << Name << ": " << V << "\n";
  };
  Field("llvm version", Metadata.LLVMVersion);
  Field("feature set", Metadata.FeatureSet);
  Field("recipe", Metadata.Recipe);
  Field("corpus hash", Metadata.CorpusHash);
  OS << "seed: " << Metadata.Seed << "\n";
  if (Heuristic.InlineThreshold)
    OS << "heuristic: inline threshold " << *Heuristic.InlineThreshold << " ("
       << InlineDefaultFeatureName
       << " is LLVM's decision at that threshold)\n";
  OS << "inputs: " << Inputs.size() << " features -> " << getNumMLPInputs()
     << " MLP inputs\n";
  for (const ModelInput &In : Inputs)
    OS << "  " << In.Spec.name() << " " << describeSpec(In.Spec) << ": "
       << describePipelines(In.Pipelines) << "\n";
  OS << "layers: " << Layers.size() << ", " << getNumParameters()
     << " parameters\n";
  for (size_t L = 0; L < Layers.size(); ++L) {
    const DenseLayer &Layer = Layers[L];
    float MaxAbs = 0;
    double SumAbs = 0;
    for (float W : Layer.Weights) {
      MaxAbs = std::max(MaxAbs, std::fabs(W));
      SumAbs += std::fabs(W);
    }
    OS << "  [" << L << "] " << describeLayer(Layer) << "; |w| mean "
       << formatShortest(static_cast<float>(SumAbs / Layer.Weights.size()))
       << ", max " << formatShortest(MaxAbs) << "\n";
  }
  OS << "output: " << OutputSpec.name() << " " << describeSpec(OutputSpec)
     << " = " << describeDecision(Decision) << "\n";
}

static bool sameBits(float A, float B) {
  return std::memcmp(&A, &B, sizeof(A)) == 0;
}

bool diffModels(const Model &A, const Model &B, raw_ostream &OS) {
  bool Differ = false;
  auto Changed = [&](const Twine &What, const Twine &From, const Twine &To) {
    OS << "~ " << What << ": " << From << " -> " << To << "\n";
    Differ = true;
  };
  auto Str = [&](StringRef What, const std::string &X, const std::string &Y) {
    if (X != Y)
      Changed(What, "\"" + X + "\"", "\"" + Y + "\"");
  };
  Str("metadata.name", A.Metadata.Name, B.Metadata.Name);
  Str("metadata.description", A.Metadata.Description, B.Metadata.Description);
  Str("metadata.llvm_version", A.Metadata.LLVMVersion, B.Metadata.LLVMVersion);
  Str("metadata.feature_set", A.Metadata.FeatureSet, B.Metadata.FeatureSet);
  Str("metadata.recipe", A.Metadata.Recipe, B.Metadata.Recipe);
  Str("metadata.corpus_hash", A.Metadata.CorpusHash, B.Metadata.CorpusHash);
  if (A.Metadata.Seed != B.Metadata.Seed)
    Changed("metadata.seed", Twine(A.Metadata.Seed), Twine(B.Metadata.Seed));
  if (A.Heuristic.InlineThreshold != B.Heuristic.InlineThreshold) {
    auto Describe = [](std::optional<int32_t> T) {
      return T ? std::to_string(*T) : std::string("(the level's own)");
    };
    Changed("heuristic.inline_threshold", Describe(A.Heuristic.InlineThreshold),
            Describe(B.Heuristic.InlineThreshold));
  }

  // Inputs, matched by name.
  for (const ModelInput &In : A.Inputs) {
    auto It = llvm::find_if(B.Inputs, [&](const ModelInput &X) {
      return X.Spec.name() == In.Spec.name();
    });
    if (It == B.Inputs.end()) {
      OS << "- input " << In.Spec.name() << " " << describeSpec(In.Spec)
         << "\n";
      Differ = true;
      continue;
    }
    if (It->Spec != In.Spec)
      Changed("input " + In.Spec.name() + " spec", In.Spec.toJSONString(),
              It->Spec.toJSONString());
    if (It->Pipelines != In.Pipelines)
      Changed("input " + In.Spec.name() + " preprocessing",
              describePipelines(In.Pipelines),
              describePipelines(It->Pipelines));
  }
  for (const ModelInput &In : B.Inputs)
    if (llvm::none_of(A.Inputs, [&](const ModelInput &X) {
          return X.Spec.name() == In.Spec.name();
        })) {
      OS << "+ input " << In.Spec.name() << " " << describeSpec(In.Spec) << ": "
         << describePipelines(In.Pipelines) << "\n";
      Differ = true;
    }
  if (A.getInputSpecs().size() == B.getInputSpecs().size()) {
    bool SameNames = true, SameOrder = true;
    for (size_t I = 0; I < A.Inputs.size(); ++I) {
      SameOrder &= A.Inputs[I].Spec.name() == B.Inputs[I].Spec.name();
      SameNames &= llvm::any_of(B.Inputs, [&](const ModelInput &X) {
        return X.Spec.name() == A.Inputs[I].Spec.name();
      });
    }
    if (SameNames && !SameOrder) {
      OS << "~ inputs: reordered\n";
      Differ = true;
    }
  }

  // Layers, position by position.
  size_t Common = std::min(A.Layers.size(), B.Layers.size());
  for (size_t L = 0; L < Common; ++L) {
    const DenseLayer &X = A.Layers[L], &Y = B.Layers[L];
    std::string Name = "layers[" + std::to_string(L) + "]";
    if (X.In != Y.In || X.Out != Y.Out || X.Act != Y.Act) {
      Changed(Name, describeLayer(X), describeLayer(Y));
      continue;
    }
    size_t NumChanged = 0;
    double MaxDelta = 0;
    auto Compare = [&](const std::vector<float> &P,
                       const std::vector<float> &Q) {
      for (size_t I = 0; I < P.size(); ++I)
        if (!sameBits(P[I], Q[I])) {
          ++NumChanged;
          MaxDelta =
              std::max(MaxDelta, std::fabs(static_cast<double>(P[I]) - Q[I]));
        }
    };
    Compare(X.Weights, Y.Weights);
    Compare(X.Bias, Y.Bias);
    if (NumChanged) {
      OS << "~ " << Name << " (" << describeLayer(X) << "): " << NumChanged
         << " of " << X.Weights.size() + X.Bias.size()
         << " parameters changed, max |delta| " << formatShortest(MaxDelta)
         << "\n";
      Differ = true;
    }
  }
  for (size_t L = Common; L < A.Layers.size(); ++L) {
    OS << "- layers[" << L << "] " << describeLayer(A.Layers[L]) << "\n";
    Differ = true;
  }
  for (size_t L = Common; L < B.Layers.size(); ++L) {
    OS << "+ layers[" << L << "] " << describeLayer(B.Layers[L]) << "\n";
    Differ = true;
  }

  if (A.OutputSpec != B.OutputSpec)
    Changed("output.spec", A.OutputSpec.toJSONString(),
            B.OutputSpec.toJSONString());
  std::string DA = describeDecision(A.Decision),
              DB = describeDecision(B.Decision);
  if (DA != DB)
    Changed("output.decision", DA, DB);
  if (!Differ)
    OS << "models are identical\n";
  return Differ;
}

} // namespace mlgo
