//===- lib/Tune/MoveRanker.cpp - Which tuning move to try first -----------===//
//
// See mlgo/Tune/MoveRanker.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/MoveRanker.h"

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <Eigen/Dense>

#include <cmath>

using namespace llvm;

namespace mlgo {

namespace {

/// The features, and whether the model takes their log1p.
struct Feature {
  const char *Name;
  bool Log;
};

constexpr Feature Features[] = {
    {"is_heuristic", false},
    {"is_group_inline", false},
    {"is_group_no_inline", false},
    {"is_site_inline", false},
    {"is_site_no_inline", false},
    {"abs_logit", true},
    {"group_inline_callee_sites", true},
    {"group_no_inline_callee_sites", true},
    {"site_inline_callee_sites", true},
    {"site_no_inline_callee_sites", true},
    {"inlines_only_call", false},
    {"changed_sites", true},
    {"unit_text", true},
};
constexpr size_t NumFeatures = std::size(Features);

/// |logit| as the ranker reads it: a site without a logit (NaN) or a very
/// sure one reads 20.
float absLogit(double L) {
  return std::isnan(L) ? 20.0f : float(std::min(std::fabs(L), 20.0));
}

} // namespace

ArrayRef<const char *> getMoveRankerFeatures() {
  static const std::vector<const char *> Names = [] {
    std::vector<const char *> N;
    for (const Feature &F : Features)
      N.push_back(F.Name);
    return N;
  }();
  return Names;
}

std::vector<float> getMoveRankerInputs(const TuneMove &M, uint64_t UnitText) {
  std::vector<float> V(NumFeatures, 0.0f);
  const MoveFeatures &F = M.Features;
  const float Sites = float(F.CalleeSites);
  if (M.Heuristic) {
    V[0] = 1;
  } else if (M.Entry.isGroup()) {
    V[M.Entry.Inline ? 1 : 2] = 1;
    V[M.Entry.Inline ? 6 : 7] = Sites;
  } else {
    V[M.Entry.Inline ? 3 : 4] = 1;
    V[M.Entry.Inline ? 8 : 9] = Sites;
    V[10] = M.Entry.Inline && F.CalleeSites == 1;
  }
  V[5] = M.Heuristic ? 0.0f : absLogit(F.Logit);
  V[11] = float(F.Changed);
  V[12] = float(UnitText);
  return V;
}

MoveRanker::MoveRanker(Model M)
    : TheModel(std::move(M)), Eval(std::make_unique<ModelEvaluator>(TheModel)) {
}
MoveRanker::MoveRanker(MoveRanker &&) = default;
MoveRanker &MoveRanker::operator=(MoveRanker &&) = default;
MoveRanker::~MoveRanker() = default;

Expected<MoveRanker> MoveRanker::create(Model M, StringRef Name) {
  if (M.Decision.isPerColumn())
    return makeError(Name + ": a move ranker is not a per-column model");
  if (M.Inputs.size() != NumFeatures)
    return makeError(Name + ": a move ranker reads " + Twine(NumFeatures) +
                     " inputs (docs/tune.md), this model " +
                     Twine(M.Inputs.size()));
  for (size_t K = 0; K < NumFeatures; ++K) {
    const TensorSpec &S = M.Inputs[K].Spec;
    if (S.name() != Features[K].Name || S.type() != TensorType::Float ||
        S.getElementCount() != 1)
      return makeError(formatv("{0}: inputs[{1}]: expected the float "
                               "feature '{2}' of one element, found '{3}'",
                               Name, K, Features[K].Name, S.name())
                           .str());
  }
  return MoveRanker(std::move(M));
}

Expected<MoveRanker> MoveRanker::load(StringRef Path) {
  Expected<Model> M = Model::load(Path);
  if (!M)
    return M.takeError();
  return create(std::move(*M), Path);
}

Expected<MoveRanker> MoveRanker::getShipped() {
  static constexpr char Text[] =
#include "ShippedRanker.inc"
      ;
  Expected<Model> M = Model::parse(Text, "models/tune-ranker/ranker.json");
  if (!M)
    return M.takeError();
  return create(std::move(*M), "models/tune-ranker/ranker.json");
}

double MoveRanker::score(const TuneMove &M, uint64_t UnitText) const {
  std::vector<float> V = getMoveRankerInputs(M, UnitText);
  SmallVector<const void *, NumFeatures> Ptrs;
  for (const float &X : V)
    Ptrs.push_back(&X);
  return Eval->evaluate(Ptrs.data());
}

Expected<std::vector<TriesRow>> readTriesLog(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  SmallVector<StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  if (!Lines.empty() && Lines.back().empty())
    Lines.pop_back();
  auto Fail = [&](size_t Line, const Twine &What) {
    return makeError(Path + ":" + Twine(Line) + ": " + What);
  };
  constexpr StringRef Header =
      "step\tcompiles\tprogram\tmodule\tmove\tlogit\tchanged\tcallee_sites\t"
      "position\tunit_text\tdelta\tok\tkept";
  if (Lines.empty() || Lines[0] != Header)
    return Fail(1, "not a tries log (expected the header of docs/tune.md)");
  std::vector<TriesRow> Rows;
  for (size_t L = 1; L < Lines.size(); ++L) {
    SmallVector<StringRef, 13> C;
    Lines[L].split(C, '\t');
    if (C.size() != 13)
      return Fail(L + 1, "expected 13 tab-separated columns, found " +
                             Twine(C.size()));
    TriesRow R;
    R.Program = C[2].str();
    SmallVector<StringRef, 6> Key;
    C[4].split(Key, ' ');
    if (Key.size() == 1 && Key[0] == "heuristic") {
      R.Move.Heuristic = true;
    } else if ((Key.size() == 3 && Key[0] == "group") ||
               (Key.size() == 5 && Key[0] == "site")) {
      if (Key.back() != "inline" && Key.back() != "no-inline")
        return Fail(L + 1, "the move '" + C[4] +
                               "' ends in neither inline nor no-inline");
      R.Move.Entry.Inline = Key.back() == "inline";
      R.Move.Entry.Callee = Key[Key[0] == "site" ? 2 : 1].str();
      if (Key[0] == "site") {
        R.Move.Entry.Caller = Key[1].str();
        if (Key[3].getAsInteger(10, R.Move.Entry.Ordinal))
          return Fail(L + 1, "bad ordinal in the move '" + C[4] + "'");
      }
    } else {
      return Fail(L + 1, "unknown move '" + C[4] + "'");
    }
    MoveFeatures &F = R.Move.Features;
    unsigned Ok = 0, Kept = 0;
    if (C[5] == "nan")
      F.Logit = std::nan("");
    else if (C[5].getAsDouble(F.Logit))
      return Fail(L + 1, "bad logit '" + C[5] + "'");
    if (C[6].getAsInteger(10, F.Changed) ||
        C[7].getAsInteger(10, F.CalleeSites) ||
        C[8].getAsInteger(10, F.Position) ||
        C[9].getAsInteger(10, R.UnitText) || C[10].getAsInteger(10, R.Delta) ||
        C[11].getAsInteger(10, Ok) || C[12].getAsInteger(10, Kept) || Ok > 1 ||
        Kept > 1)
      return Fail(L + 1, "bad number in columns 7-13");
    R.Kept = Kept;
    Rows.push_back(std::move(R));
  }
  return Rows;
}

Expected<Model> fitMoveRanker(ArrayRef<TriesRow> Rows,
                              const RankerFitOptions &O) {
  const size_t N = Rows.size(), K = NumFeatures + 1; // and the bias
  if (N < K)
    return makeError(formatv("{0} tries: too few to fit the ranker's {1} "
                             "weights",
                             N, K)
                         .str());
  Eigen::MatrixXd X(N, K);
  Eigen::VectorXd Y(N);
  for (size_t I = 0; I < N; ++I) {
    std::vector<float> V = getMoveRankerInputs(Rows[I].Move, Rows[I].UnitText);
    for (size_t F = 0; F < NumFeatures; ++F)
      X(I, F) = Features[F].Log ? std::log1p(double(V[F])) : double(V[F]);
    X(I, NumFeatures) = 1.0;
    Y(I) = Rows[I].Kept ? std::min(O.ClipBytes, double(-Rows[I].Delta)) : 0.0;
  }
  Eigen::MatrixXd A = X.transpose() * X;
  for (size_t F = 0; F < NumFeatures; ++F)
    A(F, F) += O.Ridge * double(N);
  Eigen::VectorXd W = A.ldlt().solve(X.transpose() * Y);

  Model M;
  M.Metadata.Name = "tune-ranker";
  M.Metadata.Description = O.Description;
  M.Metadata.Recipe = O.Recipe;
  M.Metadata.FeatureSet = "mlgo-tune-moves";
  M.Metadata.LLVMVersion = "19";
  for (const Feature &F : Features) {
    Pipeline P;
    if (F.Log)
      P.push_back(PreprocessStep{});
    M.Inputs.push_back(
        ModelInput{TensorSpec(F.Name, 0, TensorType::Float, {1}), {P}});
  }
  DenseLayer L;
  L.In = NumFeatures;
  L.Out = 1;
  for (size_t F = 0; F < NumFeatures; ++F)
    L.Weights.push_back(float(W(F)));
  L.Bias.push_back(float(W(NumFeatures)));
  M.Layers.push_back(std::move(L));
  M.OutputSpec = TensorSpec("try_first", 0, TensorType::Int64, {1});
  if (Error E = M.validate("the fitted ranker"))
    return E;
  return M;
}

} // namespace mlgo
