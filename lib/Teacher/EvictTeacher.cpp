//===- lib/Teacher/EvictTeacher.cpp - Eviction teachers and students ------===//
//
// See mlgo/Teacher/EvictTeacher.h. Building reuses the speed tune whole
// (runSpeedTuning) and the compile of `mlgo tune check` for speed
// (compileSpeedDecisions: each module with the entries a build applies),
// reading the eviction training log each compile of a module on the model
// writes. Training reads the model's own preprocessing through
// ModelEvaluator::computeMLPInputs, so the perceptron sees exactly the
// numbers the layers see, and judges the student with the evaluator the
// compiler's interpreter uses.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Teacher/EvictTeacher.h"

#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/RegAllocModel/EvictionFeatures.h"
#include "mlgo/RegAllocModel/EvictionMLP.h"
#include "mlgo/Speed/SpeedCompiler.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Tune/SpeedTune.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

using namespace llvm;

namespace mlgo {

namespace {

std::string md5Hex(StringRef Bytes) {
  MD5::MD5Result R = MD5::hash(arrayRefFromStringRef(Bytes));
  return std::string(R.digest());
}

/// A model's input buffers bound by name to a set's features.
struct BoundModel {
  /// Per model input, the index of the set's feature.
  std::vector<size_t> FeatureOf;
  size_t Mask = 0;
};

Expected<BoundModel> bindModel(const Model &M, StringRef ModelName,
                               const EvictTeacherSet &Set) {
  if (!M.Decision.isPerColumn() ||
      M.Decision.Columns != size_t(EvictionColumns))
    return makeError(ModelName + ": not an eviction model (a per-column "
                                 "model of 33 columns)");
  BoundModel B;
  for (const ModelInput &In : M.Inputs) {
    int64_t F = Set.getFeatureIndex(In.Spec.name());
    if (F < 0)
      return makeError(ModelName + ": reads the feature " + In.Spec.name() +
                       ", which the set does not hold");
    const TensorSpec &S = Set.Features[F];
    if (S.type() != In.Spec.type() ||
        S.getElementCount() != In.Spec.getElementCount())
      return makeError(formatv("{0}: reads the feature {1} as {2} x {3}, the "
                               "set holds {4} x {5}",
                               ModelName, In.Spec.name(),
                               toString(In.Spec.type()),
                               In.Spec.getElementCount(), toString(S.type()),
                               S.getElementCount())
                           .str());
    B.FeatureOf.push_back(size_t(F));
  }
  B.Mask = B.FeatureOf[M.getMaskInputIndex()];
  return B;
}

/// The pointers a model's evaluator reads for decision \p D.
std::vector<const void *> inputsOf(const BoundModel &B,
                                   const EvictTeacherDecision &D) {
  std::vector<const void *> P;
  for (size_t F : B.FeatureOf)
    P.push_back(D.Values[F].data());
  return P;
}

/// The masked argmax of Model.h: the allowed column with the largest
/// logit, ties and NaNs to the lowest; the last column if none is allowed.
template <typename LogitFn>
uint32_t chooseColumn(const int64_t *Mask, LogitFn Logit) {
  int64_t Best = -1;
  float BestLogit = 0;
  for (size_t C = 0; C < size_t(EvictionColumns); ++C) {
    if (!Mask[C])
      continue;
    float L = Logit(C);
    if (Best < 0 ||
        (!std::isnan(L) && (std::isnan(BestLogit) || L > BestLogit))) {
      Best = int64_t(C);
      BestLogit = L;
    }
  }
  return Best < 0 ? uint32_t(EvictionColumns - 1) : uint32_t(Best);
}

const int64_t *maskOf(const BoundModel &B, const EvictTeacherDecision &D) {
  return reinterpret_cast<const int64_t *>(D.Values[B.Mask].data());
}

/// The column \p Eval's model takes at \p D.
uint32_t decide(ModelEvaluator &Eval, const BoundModel &B,
                const EvictTeacherDecision &D) {
  std::vector<const void *> In = inputsOf(B, D);
  return chooseColumn(maskOf(B, D),
                      [&](size_t C) { return Eval.evaluate(In.data(), C); });
}

/// The instructions each kept eviction move of a speed tune saved, by
/// (module key, function, ordinal): from W/tune/moves.tsv (docs/tune.md,
/// "Outputs"), a kept `evict` try's -delta at its ordinal and a kept
/// `pair`'s at each of its two. A decision named by more than one kept
/// move (a later pass's ordinal taken by another decision) keeps the last.
using SavedMoves =
    std::map<std::tuple<std::string, std::string, uint32_t>, uint64_t>;

Expected<SavedMoves> readSavedMoves(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(Path);
  if (!B)
    return B.takeError();
  SavedMoves Saved;
  SmallVector<StringRef, 0> Lines;
  (*B)->getBuffer().split(Lines, '\n', -1, false);
  if (Lines.empty() ||
      Lines[0] != "module\tkind\tfunction\tdecision\tdelta\tkept")
    return makeError(Path + ":1: not a speed tune's moves.tsv (docs/tune.md)");
  for (size_t I = 1; I < Lines.size(); ++I) {
    SmallVector<StringRef, 6> F;
    Lines[I].split(F, '\t');
    int64_t Delta = 0;
    if (F.size() != 6 || F[4].getAsInteger(10, Delta) ||
        (F[5] != "kept" && F[5] != "-"))
      return makeError(Path + ":" + Twine(I + 1) +
                       ": not a line of a speed tune's moves.tsv");
    if (F[5] != "kept" || Delta >= 0 || (F[1] != "evict" && F[1] != "pair"))
      continue;
    SmallVector<StringRef, 2> Ordinals;
    F[3].split(Ordinals, ',');
    for (StringRef K : Ordinals) {
      uint32_t Ordinal = 0;
      if (K.getAsInteger(10, Ordinal))
        return makeError(Path + ":" + Twine(I + 1) + ": bad decision '" + F[3] +
                         "'");
      Saved[{F[0].str(), F[2].str(), Ordinal}] = uint64_t(-Delta);
    }
  }
  return Saved;
}

/// The decisions of the eviction training log at \p LogPath of module
/// \p Key, with \p Entries applied; Features set from the first log.
Error readDecisions(StringRef LogPath, StringRef Key,
                    const ModuleDecisions &Entries, const SavedMoves &Saved,
                    ModelEvaluator &Eval, const Model &M, StringRef ModelName,
                    EvictTeacherSet &Set) {
  Expected<std::unique_ptr<LogReader>> R = LogReader::open(LogPath);
  if (!R)
    return R.takeError();
  const LogHeader &H = (*R)->getHeader();
  // The log's last tensor is the answer (index_to_evict).
  if (H.Features.size() < 2 ||
      H.Features.back().name() != getEvictionAdviceSpec().name())
    return makeError(Key + ": not an eviction training log");
  std::vector<TensorSpec> Specs(H.Features.begin(), H.Features.end() - 1);
  for (const TensorSpec &S : Specs)
    if (S.type() != TensorType::Int64 && S.type() != TensorType::Float)
      return makeError(Key + ": the eviction log's feature " + S.name() +
                       " is " + toString(S.type()) + ", not int64_t or float");
  if (Set.Features.empty()) {
    for (const TensorSpec &S : Specs)
      Set.Features.emplace_back(
          S.name(), 0, S.type(),
          std::vector<int64_t>{1, int64_t(S.getElementCount())});
  } else {
    bool Same = Specs.size() == Set.Features.size();
    for (size_t I = 0; Same && I < Specs.size(); ++I)
      Same = Specs[I].name() == Set.Features[I].name() &&
             Specs[I].type() == Set.Features[I].type() &&
             Specs[I].getElementCount() == Set.Features[I].getElementCount();
    if (!Same)
      return makeError(Key + ": logged other features than the modules "
                             "before it");
  }
  Expected<BoundModel> B = bindModel(M, ModelName, Set);
  if (!B)
    return B.takeError();
  std::map<std::pair<std::string, uint32_t>, const EvictDecision *> Fixed;
  for (const EvictDecision &E : Entries.Evictions)
    Fixed[{E.Function, E.Ordinal}] = &E;
  auto Step = [&](StringRef Function, uint32_t Ordinal,
                  uint64_t Hash) -> Error {
    EvictTeacherDecision D;
    D.Module = Key.str();
    D.Function = Function.str();
    D.Ordinal = Ordinal;
    D.Hash = Hash;
    for (size_t I = 0; I < Specs.size(); ++I) {
      const char *Data = (*R)->getFeatureData(I);
      D.Values.emplace_back(Data, Data + Specs[I].getTotalTensorBufferSize());
    }
    int64_t Choice;
    std::memcpy(&Choice, (*R)->getFeatureData(Specs.size()), sizeof(Choice));
    if (Choice < 0 || Choice >= EvictionColumns)
      return makeError(formatv("{0}: {1} #{2}: the compile chose column {3}",
                               Key, D.Function, D.Ordinal, Choice)
                           .str());
    D.Tuned = uint32_t(Choice);
    D.ModelAnswer = decide(Eval, *B, D);
    auto It = Fixed.find({D.Function, D.Ordinal});
    const EvictDecision *E =
        It != Fixed.end() && It->second->Hash == D.Hash ? It->second : nullptr;
    if (E && E->Column != D.Tuned)
      return makeError(formatv("{0}: {1} #{2}: the entry fixes column {3}, "
                               "the compile took {4}",
                               Key, D.Function, D.Ordinal, E->Column, D.Tuned)
                           .str());
    if (!E && D.ModelAnswer != D.Tuned)
      return makeError(formatv("{0}: {1} #{2}: the model {3} chooses column "
                               "{4}, the compile took {5} with no entry (not "
                               "the model the tune ran?)",
                               Key, D.Function, D.Ordinal, ModelName,
                               D.ModelAnswer, D.Tuned)
                           .str());
    D.Moved = E && E->Column != D.ModelAnswer;
    if (D.Moved) {
      auto S = Saved.find({D.Module, D.Function, D.Ordinal});
      D.Saved = S != Saved.end() ? S->second : 0;
    }
    Set.Decisions.push_back(std::move(D));
    return Error::success();
  };
  return walkEvictionLog(**R, Step);
}

std::string getShippedEvictionModel() {
  return getInstallDirs().Data + "/models/regalloc-evict/model.json";
}

} // namespace

Expected<EvictTeacherSet>
buildEvictTeacherSet(const EvictTeacherBuildOptions &O) {
  // The model's answers are computed here, so the file must be the one
  // the plugin runs: the given one, or the one it embeds.
  std::string ModelPath =
      O.ModelPath.empty() ? getShippedEvictionModel() : O.ModelPath;
  Expected<std::unique_ptr<MemoryBuffer>> ModelBytes = readWholeFile(ModelPath);
  if (!ModelBytes)
    return ModelBytes.takeError();
  if (O.ModelPath.empty() &&
      md5Hex((*ModelBytes)->getBuffer()) != getEmbeddedEvictionModelMD5())
    return makeError(ModelPath +
                     ": not the eviction model the plugin "
                     "embeds (md5 " +
                     getEmbeddedEvictionModelMD5().str() + ")");
  Expected<Model> M = Model::parse((*ModelBytes)->getBuffer(), ModelPath);
  if (!M)
    return M.takeError();
  Expected<std::string> ModelMeta = getEvictionModelMeta(O.ModelPath);
  if (!ModelMeta)
    return ModelMeta.takeError();
  Expected<std::vector<CorpusModule>> Mods = loadTrainingCorpus(O.CorpusDir);
  if (!Mods)
    return Mods.takeError();
  Expected<std::unique_ptr<MemoryBuffer>> Profile = readWholeFile(O.Profile);
  if (!Profile)
    return Profile.takeError();

  // 1. The search.
  SpeedTuneOptions T;
  T.CorpusDir = O.CorpusDir;
  T.Profile = O.Profile;
  SmallString<256> TuneDir(O.WorkDir), Decisions(O.WorkDir);
  sys::path::append(TuneDir, "tune");
  sys::path::append(Decisions, "decisions.txt");
  T.WorkDir = std::string(TuneDir);
  T.Output = std::string(Decisions);
  T.MaxCompiles = O.MaxCompiles;
  T.Jobs = O.Jobs;
  T.Verbose = O.Verbose;
  T.BuildIdentity = O.BuildIdentity;
  T.EvictModel = O.ModelPath;
  if (Error E = runSpeedTuning(T))
    return E;
  Expected<std::unique_ptr<MemoryBuffer>> Bytes = readWholeFile(Decisions);
  if (!Bytes)
    return Bytes.takeError();
  Expected<DecisionsFile> File =
      DecisionsFile::parse((*Bytes)->getBuffer(), Decisions);
  if (!File)
    return File.takeError();

  EvictTeacherSet Set;
  Set.Meta.emplace_back("llvm", File->getMeta("llvm").str());
  Set.Meta.emplace_back("corpus", getCorpusFingerprint(*Mods));
  Set.Meta.emplace_back("profile", md5Hex((*Profile)->getBuffer()));
  StringRef Tuned = File->getMeta("model");
  Set.Meta.emplace_back("model", Tuned.empty() ? *ModelMeta : Tuned.str());
  Set.Meta.emplace_back(
      "budget", O.MaxCompiles ? std::to_string(O.MaxCompiles) + " compiles"
                              : std::string("none"));
  Set.Meta.emplace_back("decisions", md5Hex((*Bytes)->getBuffer()));
  SmallString<256> MovesPath(TuneDir);
  sys::path::append(MovesPath, "moves.tsv");
  Expected<SavedMoves> Saved = readSavedMoves(MovesPath);
  if (!Saved)
    return Saved.takeError();

  // 2. Every module on the eviction model, compiled as a build does.
  ModelEvaluator Eval(*M);
  if (Error E = compileSpeedDecisions(
          O.CorpusDir, *File, Decisions, O.Profile, O.ModelPath,
          [&](const TunedSpeedCompile &C) -> Error {
            if (C.Compiled->EvictLog.empty())
              return Error::success();
            return readDecisions(C.Compiled->EvictLog, C.Entries->Module,
                                 *C.Entries, *Saved, Eval, *M, ModelPath, Set);
          }))
    return E;
  if (Set.Features.empty())
    for (const TensorSpec &S : getEvictionFeatureSpecs())
      Set.Features.emplace_back(
          S.name(), 0, S.type(),
          std::vector<int64_t>{1, int64_t(S.getElementCount())});
  if (Error E = writeFileAtomically(O.Output, Set.print()))
    return E;
  return Set;
}

Expected<EvictStudentReport> trainEvictStudent(const EvictTeacherSet &Set,
                                               const Model &Init,
                                               StringRef InitName,
                                               const EvictStudentOptions &O) {
  Expected<BoundModel> B = bindModel(Init, InitName, Set);
  if (!B)
    return B.takeError();
  if (Init.Layers.size() != 1 || Init.Layers[0].Out != 1 ||
      Init.Layers[0].Act != Activation::Linear)
    return makeError(InitName + ": not a linear eviction model (one linear "
                                "layer of one output)");
  if (Set.Decisions.empty())
    return makeError("the eviction teacher set has no decisions");

  // Every row's MLP inputs, column by column, as the model's layer sees
  // them.
  const size_t In = Init.Layers[0].In;
  const size_t Cols = size_t(EvictionColumns);
  const size_t Rows = Set.Decisions.size();
  std::vector<float> X(Rows * Cols * In);
  ModelEvaluator InitEval(Init);
  EvictStudentReport Rep;
  Rep.Decisions = Rows;
  uint64_t TotalWeight = 0, InitWeight = 0;
  for (size_t R = 0; R < Rows; ++R) {
    const EvictTeacherDecision &D = Set.Decisions[R];
    std::vector<const void *> Ptrs = inputsOf(*B, D);
    for (size_t C = 0; C < Cols; ++C) {
      std::vector<float> V = InitEval.computeMLPInputs(Ptrs.data(), C);
      std::copy(V.begin(), V.end(), X.begin() + (R * Cols + C) * In);
    }
    Rep.Moved += D.Moved;
    Rep.Saved += D.Saved;
    TotalWeight += getEvictRowWeight(D);
    if (decide(InitEval, *B, D) == D.Tuned) {
      ++Rep.InitAgree;
      InitWeight += getEvictRowWeight(D);
    }
  }

  // The student is the init widened into an MLP that takes its decisions
  // (mlgo/RegAllocModel/EvictionMLP.h: h0 = relu(s), h1 = relu(-s)) and
  // one more unit h2 = relu(U . x + C), whose output weight V adds V * h2
  // to a column's score. U and C are a binary perceptron's: the unit should
  // fire at the tuned column of each moved decision and nowhere else (no
  // other column of any decision), so that it changes only the moved
  // decisions; V is then the least that makes each moved decision's tuned
  // column win where the unit fires there, doubled. Each row counts its
  // weight, 1 + the instructions its move saved, in the perceptron's
  // updates and in the pocket's count.
  const DenseLayer &Lin = Init.Layers[0];
  // s at every (row, column): the init's score, computed as its layer does.
  std::vector<float> Score(Rows * Cols);
  for (size_t K = 0; K < Rows * Cols; ++K) {
    float L = Lin.Bias[0];
    for (size_t I = 0; I < In; ++I)
      L = L + Lin.Weights[I] * X[K * In + I];
    Score[K] = L;
  }
  auto Unit = [&](const std::vector<float> &U, float C, size_t K) {
    float L = C;
    for (size_t I = 0; I < In; ++I)
      L = L + U[I] * X[K * In + I];
    return L > 0.0f ? L : 0.0f;
  };
  // The student's logit, as its output layer sums h0 - h1 + V * h2.
  auto Logit = [&](float S, float H, float V) {
    float H0 = S > 0.0f ? S : 0.0f, H1 = -S > 0.0f ? -S : 0.0f;
    float L = 0.0f;
    L = L + 1.0f * H0;
    L = L + -1.0f * H1;
    L = L + V * H;
    return L;
  };
  auto Fit = [&](const std::vector<float> &U, float C, float &V) {
    std::vector<float> H(Rows * Cols);
    for (size_t K = 0; K < Rows * Cols; ++K)
      H[K] = Unit(U, C, K);
    // The least V that makes every moved decision's tuned column win over
    // the columns where the unit fires less.
    float Need = 0;
    for (size_t R = 0; R < Rows; ++R) {
      const EvictTeacherDecision &D = Set.Decisions[R];
      if (!D.Moved)
        continue;
      const int64_t *Mask = maskOf(*B, D);
      size_t T = R * Cols + D.Tuned;
      for (size_t C2 = 0; C2 < Cols; ++C2) {
        size_t K = R * Cols + C2;
        if (!Mask[C2] || C2 == D.Tuned || H[K] >= H[T])
          continue;
        Need = std::max(Need, (Score[K] - Score[T]) / (H[T] - H[K]));
      }
    }
    V = std::isfinite(Need) ? 2 * Need : 0.0f;
    uint64_t Right = 0;
    for (size_t R = 0; R < Rows; ++R) {
      const EvictTeacherDecision &D = Set.Decisions[R];
      uint32_t P = chooseColumn(maskOf(*B, D), [&](size_t C2) {
        size_t K = R * Cols + C2;
        return Logit(Score[K], H[K], V);
      });
      if (P == D.Tuned)
        Right += getEvictRowWeight(D);
    }
    return Right;
  };
  std::vector<float> U(In, 0.0f), BestU = U;
  float C = 0, BestC = 0, V = 0, BestV = 0;
  // The warm start: the unit never fires.
  uint64_t Best = InitWeight;
  for (unsigned Epoch = 1; Epoch <= O.Epochs && Best < TotalWeight; ++Epoch) {
    for (size_t R = 0; R < Rows; ++R) {
      const EvictTeacherDecision &D = Set.Decisions[R];
      const int64_t *Mask = maskOf(*B, D);
      for (size_t C2 = 0; C2 < Cols; ++C2) {
        if (!Mask[C2] || (C2 == D.Tuned && !D.Moved))
          continue;
        bool Fire = C2 == D.Tuned;
        size_t K = R * Cols + C2;
        if ((Unit(U, C, K) > 0) == Fire)
          continue;
        float Sign = float(getEvictRowWeight(D));
        if (!Fire)
          Sign = -Sign;
        for (size_t I = 0; I < In; ++I)
          if (std::isfinite(X[K * In + I]))
            U[I] = U[I] + Sign * X[K * In + I];
        C = C + Sign;
      }
    }
    uint64_t N = Fit(U, C, V);
    if (N > Best) {
      Best = N;
      BestU = U;
      BestC = C;
      BestV = V;
      Rep.Epoch = Epoch;
    }
  }

  Expected<Model> Wide = regalloc::widenToMLP(Init, 1, 0);
  if (!Wide)
    return Wide.takeError();
  Model S = std::move(*Wide);
  std::copy(BestU.begin(), BestU.end(), S.Layers[0].Weights.begin() + 2 * In);
  S.Layers[0].Bias[2] = BestC;
  S.Layers[1].Weights[2] = BestV;
  S.Metadata.Name = O.Name;
  S.Metadata.Description =
      "Register-allocation eviction: the model " + InitName.str() +
      " with one unit more, fitted by a perceptron to the columns mlgo tune "
      "--objective speed moved (an eviction teacher set, docs/teacher.md).";
  S.Metadata.Recipe =
      formatv("mlgo teacher train (eviction teacher set {0}, init {1}, {2} "
              "epochs, kept epoch {3})",
              Set.getFingerprint(), sys::path::filename(InitName), O.Epochs,
              Rep.Epoch)
          .str();
  S.Metadata.CorpusHash = Set.getMeta("corpus").str();
  if (Error E = S.validate(O.Name))
    return E;
  // Judged as the compiler evaluates it.
  ModelEvaluator Eval(S);
  for (const EvictTeacherDecision &D : Set.Decisions) {
    bool Right = decide(Eval, *B, D) == D.Tuned;
    Rep.Agree += Right;
    Rep.MovedRight += Right && D.Moved;
    if (Right)
      Rep.SavedRight += D.Saved;
  }
  Rep.Student = std::move(S);
  return Rep;
}

} // namespace mlgo
