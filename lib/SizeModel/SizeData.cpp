//===- SizeData.cpp - IR2Native's dataset, trainer and accuracy -----------===//
//
// The dataset file, the weighted ridge fit and the accuracy measures of
// mlgo/SizeModel/SizeData.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/SizeModel/SizeData.h"

#include "mlgo/Learn/Classifier.h"
#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/SizeModel/SizeFeatures.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace mlgo {

static constexpr StringLiteral DatasetMagic = "# ir2native dataset v1";

void writeSizeDataset(raw_ostream &OS, const SizeDataset &Data) {
  OS << DatasetMagic << ", corpus " << Data.CorpusHash << "\n";
  OS << "module\tfunction\tnative_size";
  for (StringRef Name : getSizeFeatureNames())
    OS << '\t' << Name;
  OS << '\n';
  for (const SizeSample &S : Data.Samples) {
    OS << S.Module << '\t' << S.Function << '\t' << S.NativeSize;
    for (int64_t V : S.Features)
      OS << '\t' << V;
    OS << '\n';
  }
}

Expected<SizeDataset> readSizeDataset(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return makeError(Path + ": cannot read: " + Buf.getError().message());
  SmallVector<StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/true);
  if (!Lines.empty() && Lines.back().empty())
    Lines.pop_back();
  auto Fail = [&](size_t Line, const Twine &What) {
    return makeError(Path + ":" + Twine(Line + 1) + ": " + What);
  };
  SizeDataset Data;
  if (Lines.empty() || !Lines[0].starts_with(DatasetMagic))
    return Fail(0, "not an ir2native dataset (expected a first line '" +
                       DatasetMagic + ", corpus <fingerprint>')");
  StringRef Rest = Lines[0].drop_front(DatasetMagic.size());
  if (!Rest.consume_front(", corpus "))
    return Fail(0, "expected ', corpus <fingerprint>' after '" + DatasetMagic +
                       "'");
  Data.CorpusHash = Rest.str();
  if (Lines.size() < 2)
    return Fail(1, "missing the column names");
  SmallVector<StringRef, 0> Columns;
  Lines[1].split(Columns, '\t');
  ArrayRef<StringRef> Names = getSizeFeatureNames();
  if (Columns.size() < 3 || Columns[0] != "module" ||
      Columns[1] != "function" || Columns[2] != "native_size")
    return Fail(1, "expected the columns module, function, native_size, "
                   "then the features");
  for (size_t I = 0; I < std::max(Names.size(), Columns.size() - 3); ++I) {
    StringRef Have = I + 3 < Columns.size() ? Columns[I + 3] : "(none)";
    StringRef Want = I < Names.size() ? Names[I] : "(none)";
    if (Have != Want)
      return Fail(1, "feature column " + Twine(I + 1) + " is '" + Have +
                         "', this mlgo's is '" + Want +
                         "' (written with another feature list: rebuild "
                         "the dataset with `mlgo ir2native dataset`)");
  }
  for (size_t L = 2; L < Lines.size(); ++L) {
    SmallVector<StringRef, 0> Fields;
    Lines[L].split(Fields, '\t');
    if (Fields.size() != Columns.size())
      return Fail(L, "has " + Twine(Fields.size()) + " fields, expected " +
                         Twine(Columns.size()));
    SizeSample &S = Data.Samples.emplace_back();
    S.Module = Fields[0].str();
    S.Function = Fields[1].str();
    if (Fields[2].getAsInteger(10, S.NativeSize))
      return Fail(L, "native_size '" + Fields[2] + "' is not a number");
    S.Features.resize(Names.size());
    for (size_t I = 0; I < Names.size(); ++I)
      if (Fields[I + 3].getAsInteger(10, S.Features[I]))
        return Fail(L, Names[I] + " '" + Fields[I + 3] + "' is not an integer");
  }
  return Data;
}

StringRef getSamplePackage(const SizeSample &S) {
  return StringRef(S.Module).split('/').first;
}

/// The recipe's "mlp" object (SizeData.h).
static Expected<SizeRecipe::MLP> parseMLP(StringRef Path,
                                          const json::Value &Val) {
  const json::Object *O = Val.getAsObject();
  if (!O)
    return makeError(Path + ": mlp: expected an object");
  SizeRecipe::MLP N;
  auto Positive = [&](StringRef Key, const json::Value &V,
                      uint64_t &Out) -> Error {
    std::optional<int64_t> I = V.getAsInteger();
    if (!I || *I <= 0)
      return makeError(Path + ": mlp: " + Key + ": expected an integer > 0");
    Out = static_cast<uint64_t>(*I);
    return Error::success();
  };
  for (const auto &KV : *O) {
    StringRef Key = KV.first;
    const json::Value &V = KV.second;
    uint64_t U = 0;
    if (Key == "hidden") {
      const json::Array *A = V.getAsArray();
      if (!A || A->empty())
        return makeError(Path + ": mlp: hidden: expected a non-empty array "
                                "of layer widths");
      for (const json::Value &E : *A) {
        if (Error Err = Positive("hidden", E, U))
          return Err;
        N.Hidden.push_back(U);
      }
    } else if (Key == "epochs" || Key == "batch_size" || Key == "seed") {
      if (Error Err = Positive(Key, V, U))
        return Err;
      if (Key == "epochs")
        N.Epochs = static_cast<unsigned>(U);
      else if (Key == "batch_size")
        N.BatchSize = U;
      else
        N.Seed = U;
    } else if (Key == "learning_rate" || Key == "l2") {
      std::optional<double> D = V.getAsNumber();
      bool LR = Key == "learning_rate";
      if (!D || !std::isfinite(*D) || *D < 0 || (LR && *D == 0))
        return makeError(Path + ": mlp: " + Key + ": expected a number " +
                         (LR ? "> 0" : ">= 0"));
      (LR ? N.LearningRate : N.L2) = *D;
    } else if (Key == "loss") {
      std::optional<StringRef> S = V.getAsString();
      if (S && *S == "squared_error")
        N.AbsoluteLoss = false;
      else if (S && *S == "absolute_error")
        N.AbsoluteLoss = true;
      else
        return makeError(Path + ": mlp: loss: expected \"squared_error\" or "
                                "\"absolute_error\"");
    } else {
      return makeError(Path + ": mlp: unknown key '" + Key +
                       "' (expected hidden, epochs, batch_size, "
                       "learning_rate, l2, loss, seed)");
    }
  }
  if (N.Hidden.empty())
    return makeError(Path + ": mlp: hidden: missing (a linear model is the "
                            "recipe without mlp)");
  return N;
}

Expected<SizeRecipe> SizeRecipe::load(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return makeError(Path + ": cannot read: " + Buf.getError().message());
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V)
    return makeError(Path + ": " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O)
    return makeError(Path + ": expected a JSON object");
  SizeRecipe R;
  for (const auto &KV : *O) {
    StringRef Key = KV.first;
    const json::Value &Val = KV.second;
    if (Key == "name" || Key == "description") {
      std::optional<StringRef> S = Val.getAsString();
      if (!S || (Key == "name" && S->empty()))
        return makeError(Path + ": " + Key + ": expected a non-empty string");
      (Key == "name" ? R.Name : R.Description) = S->str();
    } else if (Key == "held_out_packages") {
      const json::Array *A = Val.getAsArray();
      if (!A)
        return makeError(Path + ": held_out_packages: expected an array of "
                                "package names");
      for (const json::Value &E : *A) {
        std::optional<StringRef> S = E.getAsString();
        if (!S || S->empty())
          return makeError(Path + ": held_out_packages: expected package "
                                  "names");
        R.HeldOutPackages.push_back(S->str());
      }
    } else if (Key == "log_target") {
      std::optional<bool> B = Val.getAsBoolean();
      if (!B)
        return makeError(Path + ": log_target: expected true or false");
      R.LogTarget = *B;
    } else if (Key == "log_features") {
      std::optional<bool> B = Val.getAsBoolean();
      if (!B)
        return makeError(Path + ": log_features: expected true or false");
      R.LogFeatures = *B;
    } else if (Key == "mlp") {
      Expected<SizeRecipe::MLP> N = parseMLP(Path, Val);
      if (!N)
        return N.takeError();
      R.Network = *N;
    } else if (Key == "ridge") {
      std::optional<double> D = Val.getAsNumber();
      if (!D || !(*D >= 0) || !std::isfinite(*D))
        return makeError(Path + ": ridge: expected a number >= 0");
      R.Ridge = *D;
    } else {
      return makeError(Path + ": unknown key '" + Key +
                       "' (expected name, description, held_out_packages, "
                       "log_features, log_target, mlp, ridge)");
    }
  }
  return R;
}

bool SizeRecipe::isHeldOut(StringRef Package) const {
  return is_contained(HeldOutPackages, Package);
}

using ColumnFn = function_ref<double(const SizeSample &, size_t)>;

/// The weighted ridge fit: normal equations over [1, standardized columns],
/// solved with LDLT.
static Expected<DenseLayer>
fitSizeRidge(ArrayRef<const SizeSample *> Rows, double Ridge, size_t C,
             ColumnFn Column, ArrayRef<double> Mean, ArrayRef<double> StdDev,
             ArrayRef<double> Weight, double TotalWeight,
             ArrayRef<double> Target) {
  const size_t P = C + 1;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(P, P);
  Eigen::VectorXd B = Eigen::VectorXd::Zero(P);
  std::vector<double> X(P);
  for (size_t I = 0; I < Rows.size(); ++I) {
    X[0] = 1;
    for (size_t K = 0; K < C; ++K)
      X[K + 1] = (Column(*Rows[I], K) - Mean[K]) / StdDev[K];
    double Y = Target[I];
    for (size_t R = 0; R < P; ++R) {
      double WX = Weight[I] * X[R];
      B(R) += WX * Y;
      for (size_t Col = 0; Col < P; ++Col)
        A(R, Col) += WX * X[Col];
    }
  }
  for (size_t K = 1; K < P; ++K)
    A(K, K) += Ridge * TotalWeight;
  Eigen::VectorXd Beta = A.ldlt().solve(B);
  for (size_t K = 0; K < P; ++K)
    if (!std::isfinite(Beta(K)))
      return makeError("the least-squares fit did not converge (a feature "
                       "collinear with another and ridge 0?)");

  DenseLayer L;
  L.In = C;
  L.Out = 1;
  L.Act = Activation::Linear;
  for (size_t K = 0; K < C; ++K)
    L.Weights.push_back(static_cast<float>(Beta(K + 1)));
  L.Bias.push_back(static_cast<float>(Beta(0)));
  return L;
}

/// The MLP: the classifier's trainer (mlgo/Learn/Classifier.h) with a
/// regression loss, on the columns as the model's pipelines compute them
/// (standardized in double, then rounded to float: the interpreter's MLP
/// input), fed raw.
static Expected<std::vector<DenseLayer>>
fitSizeMLP(ArrayRef<const SizeSample *> Rows, const SizeRecipe::MLP &Net,
           size_t C, ColumnFn Column, ArrayRef<double> Mean,
           ArrayRef<double> StdDev, ArrayRef<double> Weight,
           ArrayRef<double> Target) {
  std::vector<std::string> Names;
  for (size_t K = 0; K < C; ++K)
    Names.push_back("column" + std::to_string(K));
  learn::Dataset D(Names);
  D.reserve(Rows.size());
  std::vector<float> Row(C);
  for (size_t I = 0; I < Rows.size(); ++I) {
    for (size_t K = 0; K < C; ++K)
      Row[K] = static_cast<float>((Column(*Rows[I], K) - Mean[K]) / StdDev[K]);
    D.addRow(Row, 0, static_cast<float>(Weight[I]));
  }
  learn::ClassifierOptions O;
  O.Hidden.assign(Net.Hidden.begin(), Net.Hidden.end());
  O.HiddenActivation = Activation::Relu;
  O.Loss = Net.AbsoluteLoss ? learn::LossKind::AbsoluteError
                            : learn::LossKind::SquaredError;
  O.Epochs = Net.Epochs;
  O.BatchSize = Net.BatchSize;
  O.Optimizer.LearningRate = Net.LearningRate;
  O.L2 = Net.L2;
  O.Seed = Net.Seed;
  for (size_t K = 0; K < C; ++K)
    O.Normalization.RawFeatures.push_back(K);
  Expected<Model> M = learn::trainClassifier(D, O, Target);
  if (!M)
    return M.takeError();
  return std::move(M->Layers);
}

Expected<Model> fitSizeModel(ArrayRef<const SizeSample *> Train,
                             const SizeRecipe &Recipe, StringRef CorpusHash,
                             StringRef RecipeText) {
  const size_t F = NumSizeFeatures;
  std::vector<const SizeSample *> Rows;
  for (const SizeSample *S : Train)
    if (S->NativeSize > 0)
      Rows.push_back(S);
  if (Rows.empty())
    return makeError("no training samples (every package held out, or an "
                     "empty dataset)");
  // The fit's columns: per feature, its value and, with LogFeatures, its
  // log1p - in the model, the input's pipelines in that order.
  const size_t Pipes = Recipe.LogFeatures ? 2 : 1;
  const size_t C = F * Pipes;
  auto Column = [&](const SizeSample &S, size_t J) {
    double V = static_cast<double>(S.Features[J / Pipes]);
    if (J % Pipes == 1)
      V = std::copysign(std::log1p(std::fabs(V)), V);
    return V;
  };
  // The fit's target: the size, each sample weighing 1/y^2 (squared
  // relative errors); or, with LogTarget, log(size), every sample weighing
  // the same (a difference of logs is a relative error already). The
  // standardization statistics use the same weights.
  // An MLP's absolute error weighs 1/y (the sum of absolute relative
  // errors). Its standardization is unweighted: weighted by 1/y^2, a large
  // function's inputs would be hundreds of standard deviations out, where
  // relu units extrapolate wildly.
  const bool AbsoluteLoss = Recipe.Network && Recipe.Network->AbsoluteLoss;
  std::vector<double> Weight(Rows.size()), Target(Rows.size());
  double TotalWeight = 0;
  for (size_t I = 0; I < Rows.size(); ++I) {
    double Y = static_cast<double>(Rows[I]->NativeSize);
    Weight[I] =
        Recipe.LogTarget ? 1.0 : (AbsoluteLoss ? 1.0 / Y : 1.0 / (Y * Y));
    Target[I] = Recipe.LogTarget ? std::log(Y) : Y;
    TotalWeight += Weight[I];
  }
  auto StatWeight = [&](size_t I) { return Recipe.Network ? 1.0 : Weight[I]; };
  double TotalStatWeight = 0;
  for (size_t I = 0; I < Rows.size(); ++I)
    TotalStatWeight += StatWeight(I);
  std::vector<double> Mean(C, 0), StdDev(C, 0);
  for (size_t I = 0; I < Rows.size(); ++I)
    for (size_t K = 0; K < C; ++K)
      Mean[K] += StatWeight(I) * Column(*Rows[I], K);
  for (size_t K = 0; K < C; ++K)
    Mean[K] /= TotalStatWeight;
  for (size_t I = 0; I < Rows.size(); ++I)
    for (size_t K = 0; K < C; ++K) {
      double D = Column(*Rows[I], K) - Mean[K];
      StdDev[K] += StatWeight(I) * D * D;
    }
  for (size_t K = 0; K < C; ++K) {
    StdDev[K] = std::sqrt(StdDev[K] / TotalStatWeight);
    // A feature constant over the training set carries no information:
    // keep it readable (the model still binds it) with weight 0.
    if (!(StdDev[K] > 0)) {
      StdDev[K] = 1;
      Mean[K] = 0;
    }
  }
  std::vector<DenseLayer> Layers;
  if (Recipe.Network) {
    Expected<std::vector<DenseLayer>> Net = fitSizeMLP(
        Rows, *Recipe.Network, C, Column, Mean, StdDev, Weight, Target);
    if (!Net)
      return Net.takeError();
    Layers = std::move(*Net);
  } else {
    Expected<DenseLayer> L = fitSizeRidge(Rows, Recipe.Ridge, C, Column, Mean,
                                          StdDev, Weight, TotalWeight, Target);
    if (!L)
      return L.takeError();
    Layers.push_back(std::move(*L));
  }
  if (Recipe.LogTarget)
    Layers.back().Act = Activation::Exp;

  Model M;
  M.Metadata.Name = Recipe.Name;
  M.Metadata.Description =
      Recipe.Description.empty()
          ? "native .text bytes of a function, predicted from its IR at the "
            "end of the -Oz pipeline"
          : Recipe.Description;
  M.Metadata.LLVMVersion = "19";
  M.Metadata.FeatureSet = "mlgo-ir2native-v1";
  M.Metadata.Recipe = RecipeText.str();
  M.Metadata.CorpusHash = CorpusHash.str();
  ArrayRef<StringRef> Names = getSizeFeatureNames();
  for (size_t K = 0; K < F; ++K) {
    ModelInput In{TensorSpec::createSpec<int64_t>(Names[K].str(), {1}), {}};
    for (size_t Pipe = 0; Pipe < Pipes; ++Pipe) {
      Pipeline Steps;
      if (Pipe == 1) {
        PreprocessStep Log;
        Log.TheOp = PreprocessStep::Op::Log1p;
        Steps.push_back(Log);
      }
      PreprocessStep Std;
      Std.TheOp = PreprocessStep::Op::Standardize;
      Std.Mean = Mean[K * Pipes + Pipe];
      Std.StdDev = StdDev[K * Pipes + Pipe];
      Steps.push_back(Std);
      In.Pipelines.push_back(std::move(Steps));
    }
    M.Inputs.push_back(std::move(In));
  }
  M.Layers = std::move(Layers);
  M.OutputSpec = TensorSpec::createSpec<float>(NativeSizeOutputName.str(), {1});
  M.Decision.TheKind = DecisionRule::Kind::Threshold;
  M.Decision.Threshold = 0;
  if (Error E = M.validate(Recipe.Name))
    return E;
  return M;
}

SizeAccuracy measureSizeAccuracy(ArrayRef<double> Predicted,
                                 ArrayRef<double> Actual) {
  assert(Predicted.size() == Actual.size() && "one prediction per label");
  SizeAccuracy A;
  std::vector<double> APE;
  for (size_t I = 0; I < Actual.size(); ++I) {
    if (!(Actual[I] > 0))
      continue;
    APE.push_back(std::fabs(Predicted[I] - Actual[I]) / Actual[I]);
    A.ActualBytes += Actual[I];
    A.PredictedBytes += Predicted[I];
  }
  A.Functions = APE.size();
  if (APE.empty())
    return A;
  std::sort(APE.begin(), APE.end());
  auto Quantile = [&](double Q) {
    // The lower median for an even count: a value that occurs.
    size_t Index = static_cast<size_t>(std::ceil(Q * APE.size())) - 1;
    return APE[std::min(Index, APE.size() - 1)];
  };
  A.MdAPE = Quantile(0.5);
  A.P90APE = Quantile(0.9);
  double Sum = 0;
  for (double E : APE)
    Sum += E;
  A.MeanAPE = Sum / APE.size();
  return A;
}

Error checkSizeModel(const Model &M, StringRef FileName) {
  if (M.OutputSpec.name() != NativeSizeOutputName)
    return makeError(FileName + ": output '" + M.OutputSpec.name() +
                     "' is not '" + NativeSizeOutputName +
                     "': not a native-size model");
  if (M.Decision.isPerColumn())
    return makeError(FileName + ": a native-size model has one output, not "
                                "columns");
  ArrayRef<StringRef> Names = getSizeFeatureNames();
  for (const ModelInput &In : M.Inputs) {
    if (!is_contained(Names, In.Spec.name()))
      return makeError(FileName + ": model input '" + In.Spec.name() +
                       "' is not a native-size feature (features: " +
                       join(Names.begin(), Names.begin() + 3, ", ") +
                       ", ...; docs/ir2native.md)");
    if (In.Spec != TensorSpec::createSpec<int64_t>(In.Spec.name(), {1}))
      return makeError(FileName + ": model input '" + In.Spec.name() +
                       "' must be int64_t [1]");
  }
  return Error::success();
}

SizePredictorOverSamples::SizePredictorOverSamples(const Model &M)
    : Evaluator(std::make_shared<ModelEvaluator>(M)) {
  ArrayRef<StringRef> Names = getSizeFeatureNames();
  for (const ModelInput &In : M.Inputs)
    FeatureOfInput.push_back(find(Names, In.Spec.name()) - Names.begin());
  Scratch.resize(FeatureOfInput.size());
}

Expected<SizePredictorOverSamples>
SizePredictorOverSamples::create(const Model &M) {
  if (Error E = checkSizeModel(M, M.Metadata.Name))
    return E;
  return SizePredictorOverSamples(M);
}

double SizePredictorOverSamples::predict(const SizeSample &S) {
  std::vector<const void *> Inputs;
  for (size_t K = 0; K < FeatureOfInput.size(); ++K) {
    Scratch[K] = S.Features[FeatureOfInput[K]];
    Inputs.push_back(&Scratch[K]);
  }
  return Evaluator->evaluate(Inputs.data());
}

} // namespace mlgo
