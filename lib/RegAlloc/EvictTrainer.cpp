//===- EvictTrainer.cpp - Evolution strategies on the regalloc score ------===//
//
// See mlgo/RegAlloc/EvictTrainer.h for the loop and its guarantees.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAlloc/EvictTrainer.h"

#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/Fingerprint.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Model/SplitMix64.h"
#include "mlgo/RegAlloc/Score.h"
#include "mlgo/RegAlloc/TieBreak.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Parallel.h"
#include "mlgo/Support/Process.h"
#include "mlgo/Support/Progress.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

using namespace llvm;

namespace mlgo::regalloc {
namespace {

/// A standard normal value from \p State (Box-Muller on two 53-bit
/// uniforms), the same on every platform.
double normal(uint64_t &State) {
  auto Unit = [&] {
    return (static_cast<double>(splitMix64(State) >> 11) + 0.5) * 0x1p-53;
  };
  double U1 = Unit(), U2 = Unit();
  return std::sqrt(-2.0 * std::log(U1)) * std::cos(6.283185307179586 * U2);
}

std::string md5Hex(StringRef Text) {
  MD5 H;
  H.update(Text);
  MD5::MD5Result R;
  H.final(R);
  return R.digest().str().str();
}

/// WORK/scores.tsv: "<candidate id>\t<module>\t<score>" lines, appended as
/// scores become known. A torn last line (a killed run) is ignored.
class ScoreCache {
public:
  Error open(StringRef Path) {
    this->Path = Path.str();
    if (auto Buf = MemoryBuffer::getFile(Path)) {
      SmallVector<StringRef, 0> Lines;
      (*Buf)->getBuffer().split(Lines, '\n');
      for (StringRef L : Lines) {
        SmallVector<StringRef, 3> F;
        L.split(F, '\t');
        double V;
        if (F.size() != 3 || F[2].getAsDouble(V))
          continue;
        Scores[(F[0] + "\t" + F[1]).str()] = V;
      }
    }
    std::error_code EC;
    OS = std::make_unique<raw_fd_ostream>(Path, EC, sys::fs::OF_Append);
    if (EC)
      return makeError("cannot open '" + Path + "': " + EC.message());
    return Error::success();
  }
  std::optional<double> find(StringRef Id, StringRef Module) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Scores.find((Id + "\t" + Module).str());
    if (It == Scores.end())
      return std::nullopt;
    return It->second;
  }
  Error add(StringRef Id, StringRef Module, double V) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Scores[(Id + "\t" + Module).str()] = V;
    *OS << Id << '\t' << Module << '\t' << formatv("{0:e17}", V) << '\n';
    OS->flush();
    if (OS->has_error())
      return makeError("cannot write '" + Path + "': " + OS->error().message());
    return Error::success();
  }

private:
  std::string Path;
  std::mutex Mutex;
  std::map<std::string, double> Scores;
  std::unique_ptr<raw_fd_ostream> OS;
};

struct TrainModule {
  std::string Name;   ///< The corpus name.
  std::string IRPath; ///< WORK/ir/..., optimized.
  double Default = 0; ///< Stock llc's score.
};

class Trainer {
public:
  Trainer(const EvictTrainOptions &O, raw_ostream &Log) : O(O), Log(Log) {}
  Expected<EvictTrainResult> run();

private:
  Error prepare(ArrayRef<std::string> Candidates, size_t Want,
                std::vector<TrainModule> &Out, StringRef What,
                bool KeepFree = false);
  Expected<double> score(StringRef Id, StringRef ModelPath,
                         const TrainModule &M);
  /// Scores of one model on \p Set (all modules, in parallel).
  Expected<std::vector<double>> evaluate(const Model &Candidate,
                                         ArrayRef<TrainModule> Set,
                                         std::string &IdOut);
  Model withWeights(ArrayRef<float> W) const;
  /// Start with the tie-breaker fitted on the start model's decisions on
  /// \p Set (TieBreak.h).
  Expected<TieBreakFit> fitTies(ArrayRef<TrainModule> Set);
  /// Writes \p Candidate to WORK/candidates/<id>.json; returns the id.
  Expected<std::string> writeCandidate(const Model &Candidate);

  const EvictTrainOptions &O;
  raw_ostream &Log;
  ScoreCache Cache;
  Model Start;
  /// Modules prepare() left out (their MIR does not read back).
  size_t LeftOut = 0;

  friend Expected<EvictEvalResult>
  mlgo::regalloc::evaluateEvictionModel(const EvictEvalOptions &,
                                        raw_ostream &);
};

Model Trainer::withWeights(ArrayRef<float> W) const {
  Model M = Start;
  M.Layers[0].Weights.assign(W.begin(), W.end());
  return M;
}

Expected<double> Trainer::score(StringRef Id, StringRef ModelPath,
                                const TrainModule &M) {
  if (std::optional<double> S = Cache.find(Id, M.Name))
    return *S;
  LLCOptions LO;
  if (!ModelPath.empty()) {
    LO.ExtraArgs.push_back("-load=" + O.PluginPath);
    LO.ExtraArgs.push_back(("-mlgo-evict-model=" + ModelPath).str());
  }
  Expected<ModuleScore> S = compileAndScore(M.IRPath, LO);
  if (!S)
    return S.takeError();
  if (Error E = Cache.add(Id, M.Name, S->Score))
    return E;
  return S->Score;
}

Error Trainer::prepare(ArrayRef<std::string> Candidates, size_t Want,
                       std::vector<TrainModule> &Out, StringRef What,
                       bool KeepFree) {
  // Optimize and score candidates in batches until Want have a non-zero
  // default score.
  size_t Next = 0;
  while (Out.size() < Want && Next < Candidates.size()) {
    size_t N = std::min(Candidates.size() - Next, Want - Out.size() + 4);
    std::vector<TrainModule> Batch(N);
    std::vector<std::string> Errors(N), Skipped(N);
    runJobs(N, O.Jobs, [&](size_t I) {
      TrainModule &M = Batch[I];
      M.Name = Candidates[Next + I];
      std::string Flat = M.Name;
      std::replace(Flat.begin(), Flat.end(), '/', '@');
      M.IRPath = O.WorkDir + "/ir/" + Flat + ".bc";
      if (!sys::fs::exists(M.IRPath)) {
        std::string Tmp = M.IRPath + ".tmp";
        RunOptions RO;
        RO.TimeoutSeconds = 300;
        RO.Stderr = std::string("/dev/null");
        ProcessResult R =
            runProcess({"opt-19", "-O2",
                        getModuleFile(O.CorpusDir, M.Name, ".bc"), "-o", Tmp},
                       RO);
        if (!R.succeeded()) {
          Errors[I] = M.Name + ": opt-19 -O2 " + R.describe();
          return;
        }
        if (std::error_code EC = sys::fs::rename(Tmp, M.IRPath)) {
          Errors[I] = "cannot rename '" + Tmp + "': " + EC.message();
          return;
        }
      }
      Expected<double> S = score("llvm-default", "", M);
      if (!S) {
        // Not every module's MIR reads back (LLVM's MIR printer and parser
        // do not round-trip every construct): such a module cannot be
        // scored and is left out, which the log says.
        Skipped[I] = toString(S.takeError());
        return;
      }
      M.Default = *S;
    });
    for (size_t I = 0; I < N; ++I) {
      if (!Errors[I].empty())
        return makeError(Errors[I]);
      if (!Skipped[I].empty()) {
        if (!O.Quiet)
          Log << "  left out " << Batch[I].Name << ": " << Skipped[I] << "\n";
        ++LeftOut;
        continue;
      }
      if ((KeepFree || Batch[I].Default > 0) && Out.size() < Want)
        Out.push_back(std::move(Batch[I]));
    }
    Next += N;
  }
  if (Out.empty() && !KeepFree)
    return makeError("no " + What + " module of '" + O.CorpusDir +
                     "' has register-allocation cost to learn from");
  return Error::success();
}

Expected<std::vector<double>> Trainer::evaluate(const Model &Candidate,
                                                ArrayRef<TrainModule> Set,
                                                std::string &IdOut) {
  Expected<std::string> Written = writeCandidate(Candidate);
  if (!Written)
    return Written.takeError();
  std::string Id = *Written;
  IdOut = Id;
  std::string Path = O.WorkDir + "/candidates/" + Id + ".json";
  std::vector<double> Scores(Set.size());
  std::vector<std::string> Errors(Set.size());
  runJobs(Set.size(), O.Jobs, [&](size_t I) {
    Expected<double> S = score(Id, Path, Set[I]);
    if (S)
      Scores[I] = *S;
    else
      Errors[I] = toString(S.takeError());
  });
  for (const std::string &E : Errors)
    if (!E.empty())
      return makeError(E);
  return Scores;
}

Expected<std::string> Trainer::writeCandidate(const Model &Candidate) {
  std::string Text = Candidate.toJSONString();
  std::string Id = md5Hex(Text).substr(0, 16);
  std::string Path = O.WorkDir + "/candidates/" + Id + ".json";
  if (!sys::fs::exists(Path))
    if (Error E = writeFileAtomically(Path, Text))
      return E;
  return Id;
}

Expected<TieBreakFit> Trainer::fitTies(ArrayRef<TrainModule> Set) {
  Expected<std::string> Id = writeCandidate(Start);
  if (!Id)
    return Id.takeError();
  std::string ModelPath = O.WorkDir + "/candidates/" + *Id + ".json";
  std::string Dir = O.WorkDir + "/logs/" + *Id;
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeError("cannot create '" + Dir + "': " + EC.message());
  // One log per module, named by module and start model; written under a
  // temporary name and renamed, so a killed run leaves none half-written.
  std::vector<std::string> Logs(Set.size()), Errors(Set.size());
  runJobs(Set.size(), O.Jobs, [&](size_t I) {
    std::string Flat = Set[I].Name;
    std::replace(Flat.begin(), Flat.end(), '/', '@');
    Logs[I] = Dir + "/" + Flat + ".log";
    if (sys::fs::exists(Logs[I]))
      return;
    std::string Tmp = Logs[I] + ".tmp";
    LLCOptions LO;
    LO.ExtraArgs = {"-load=" + O.PluginPath, "-mlgo-evict-model=" + ModelPath,
                    "-mlgo-evict-training-log=" + Tmp};
    Expected<std::string> MIR = compileToMIR(Set[I].IRPath, LO);
    if (!MIR) {
      Errors[I] = toString(MIR.takeError());
      return;
    }
    // A module whose functions never reach the eviction advisor has no
    // log; it has nothing to fit either.
    if (!sys::fs::exists(Tmp)) {
      if (Error E = writeFileAtomically(Logs[I], ""))
        Errors[I] = toString(std::move(E));
      return;
    }
    if (std::error_code EC = sys::fs::rename(Tmp, Logs[I]))
      Errors[I] = "cannot rename '" + Tmp + "': " + EC.message();
  });
  for (const std::string &E : Errors)
    if (!E.empty())
      return makeError(E);
  TieBreakFitter Fitter;
  for (const std::string &L : Logs) {
    uint64_t Size = 0;
    if (!sys::fs::file_size(L, Size) && Size == 0)
      continue;
    if (Error E = Fitter.addLog(L))
      return E;
  }
  Expected<TieBreakFit> Fit = Fitter.fit();
  if (!Fit)
    return Fit.takeError();
  Expected<Model> With = addTieBreak(Start, *Fit);
  if (!With)
    return With.takeError();
  Start = std::move(*With);
  return Fit;
}

/// The mean of Scores[i] / Default[i].
double objective(ArrayRef<double> Scores, ArrayRef<TrainModule> Set) {
  double Sum = 0;
  for (size_t I = 0; I < Set.size(); ++I)
    Sum += Scores[I] / Set[I].Default;
  return Sum / static_cast<double>(Set.size());
}

Expected<EvictTrainResult> Trainer::run() {
  Expected<Model> M = Model::load(O.InitModelPath);
  if (!M)
    return M.takeError();
  Start = std::move(*M);
  if (!Start.Decision.isPerColumn() || Start.Layers.size() != 1 ||
      Start.Layers[0].Out != 1)
    return makeError("'" + O.InitModelPath +
                     "': the trainer improves per-column models with one "
                     "linear layer");
  for (StringRef Dir : {"", "/ir", "/candidates"})
    if (std::error_code EC = sys::fs::create_directories(O.WorkDir + Dir))
      return makeError("cannot create '" + O.WorkDir + Dir +
                       "': " + EC.message());
  if (Error E = Cache.open(O.WorkDir + "/scores.tsv"))
    return E;

  Expected<CorpusDescription> D = CorpusDescription::read(O.CorpusDir);
  if (!D)
    return D.takeError();
  Expected<std::string> Fingerprint = computeCorpusFingerprint(O.CorpusDir, *D);
  if (!Fingerprint)
    return Fingerprint.takeError();
  StringSet<> Held(O.ValidationPackages);
  std::vector<std::string> TrainNames, ValNames;
  for (const std::string &Name : D->Modules)
    (Held.contains(getModulePackage(Name)) ? ValNames : TrainNames)
        .push_back(Name);
  auto Shuffle = [&](std::vector<std::string> &V, uint64_t Salt) {
    std::sort(V.begin(), V.end());
    uint64_t S = O.Seed ^ Salt;
    for (size_t I = V.size(); I > 1; --I)
      std::swap(V[I - 1], V[splitMix64(S) % I]);
  };
  Shuffle(TrainNames, 0x7261696e);
  Shuffle(ValNames, 0x76616c);

  std::vector<TrainModule> Train, Val;
  if (!O.Quiet)
    Log << "mlgo regalloc train: preparing modules (opt-19 -O2, stock "
           "llc-19 scores)\n";
  if (Error E = prepare(TrainNames, O.TrainModules, Train, "training"))
    return E;
  if (!ValNames.empty() && O.ValidationModules)
    if (Error E = prepare(ValNames, O.ValidationModules, Val, "validation"))
      return E;

  EvictTrainResult Result;
  if (O.FitTies) {
    if (!O.Quiet)
      Log << "fitting the tie-breaker on the start model's decisions\n";
    Expected<TieBreakFit> Fit = fitTies(Train);
    if (!Fit)
      return Fit.takeError();
    Result.TieBreak = std::move(*Fit);
  }
  std::vector<float> Center = Start.Layers[0].Weights;
  const size_t Dim = Center.size();
  // Each weight moves on its own scale, fixed by the start: its magnitude,
  // or SigmaFloor for the smaller ones. A model whose terms differ by orders
  // of magnitude (a main rule and tie-breakers far below it) keeps its
  // structure while every term is searched.
  std::vector<double> Scale(Dim);
  for (size_t K = 0; K < Dim; ++K)
    Scale[K] = std::max<double>(std::fabs(Center[K]), O.SigmaFloor);
  std::string Id;
  Expected<std::vector<double>> StartScores = evaluate(Start, Train, Id);
  if (!StartScores)
    return StartScores.takeError();
  Result.StartObjective = objective(*StartScores, Train);
  double Best = Result.StartObjective;
  std::vector<float> BestW = Center;
  if (!O.Quiet)
    Log << formatv("modules: {0} training, {1} validation; start objective "
                   "{2:f5} (score / LLVM default)\n",
                   Train.size(), Val.size(), Result.StartObjective);

  Progress Bar("training", "generations");
  for (unsigned G = 0; G < O.Generations; ++G) {
    std::vector<std::vector<double>> Eps(O.Pairs, std::vector<double>(Dim));
    uint64_t S = O.Seed * 0x9e3779b97f4a7c15ULL + G + 1;
    for (auto &E : Eps)
      for (double &X : E)
        X = normal(S);
    std::vector<double> Plus(O.Pairs), Minus(O.Pairs);
    for (unsigned P = 0; P < O.Pairs; ++P)
      for (int Sign : {1, -1}) {
        std::vector<float> W(Dim);
        for (size_t K = 0; K < Dim; ++K)
          W[K] = static_cast<float>(Center[K] +
                                    Sign * O.Sigma * Scale[K] * Eps[P][K]);
        Expected<std::vector<double>> Sc = evaluate(withWeights(W), Train, Id);
        if (!Sc)
          return Sc.takeError();
        double F = objective(*Sc, Train);
        (Sign > 0 ? Plus : Minus)[P] = F;
        if (F < Best) {
          Best = F;
          BestW = W;
        }
      }
    // Descent direction, normalized by the spread of the objectives.
    double Mean = 0, Var = 0;
    for (unsigned P = 0; P < O.Pairs; ++P)
      Mean += Plus[P] + Minus[P];
    Mean /= 2.0 * O.Pairs;
    for (unsigned P = 0; P < O.Pairs; ++P)
      Var += (Plus[P] - Mean) * (Plus[P] - Mean) +
             (Minus[P] - Mean) * (Minus[P] - Mean);
    double Spread = std::sqrt(Var / (2.0 * O.Pairs)) + 1e-12;
    for (size_t K = 0; K < Dim; ++K) {
      double Grad = 0;
      for (unsigned P = 0; P < O.Pairs; ++P)
        Grad += (Minus[P] - Plus[P]) * Eps[P][K];
      Center[K] = static_cast<float>(Center[K] + O.Step * Scale[K] * Grad /
                                                     (2.0 * O.Pairs * Spread));
    }
    Expected<std::vector<double>> Sc = evaluate(withWeights(Center), Train, Id);
    if (!Sc)
      return Sc.takeError();
    double F = objective(*Sc, Train);
    if (F < Best) {
      Best = F;
      BestW = Center;
    }
    Result.Curve.push_back({F, Best});
    if (!O.Quiet) {
      Bar.setDetail(formatv("; objective {0:f5}, best {1:f5}", F, Best).str());
      Bar.update(G + 1, O.Generations);
    }
  }
  if (!O.Quiet)
    Bar.end();
  Result.BestObjective = Best;
  Result.Trained = withWeights(BestW);
  Result.Trained.Metadata.Recipe =
      formatv("mlgo regalloc train --seed {0} --generations {1} --pairs {2} "
              "--sigma {3} --sigma-floor {4} --step {5} --train-modules {6}{7}",
              O.Seed, O.Generations, O.Pairs, format("%g", O.Sigma),
              format("%g", O.SigmaFloor), format("%g", O.Step), O.TrainModules,
              O.FitTies ? " --fit-ties" : "")
          .str() +
      " --init " + sys::path::filename(O.InitModelPath).str() +
      // The held-out packages decide which modules train.
      (O.ValidationPackages.empty()
           ? std::string()
           : " --validation-packages " + join(O.ValidationPackages, ","));
  Result.Trained.Metadata.Seed = O.Seed;
  Result.Trained.Metadata.CorpusHash = *Fingerprint;
  if (O.FitTies) {
    static constexpr const char *TieNote =
        " Tie-breaker fitted by `mlgo regalloc train --fit-ties`: where "
        "LLVM's normalization erases the densities (an unspillable "
        "candidate), logarithms of the features that survive it estimate "
        "which live ranges are lighter (docs/regalloc.md).";
    std::string &Desc = Result.Trained.Metadata.Description;
    if (Desc.find(TieNote) == std::string::npos)
      Desc += TieNote;
  }

  // Validation: LLVM's default, the start and the trained model.
  EvictSetResult &V = Result.Validation;
  V.Modules = Val.size();
  if (!Val.empty()) {
    Expected<std::vector<double>> A = evaluate(Start, Val, Id);
    if (!A)
      return A.takeError();
    Expected<std::vector<double>> B = evaluate(Result.Trained, Val, Id);
    if (!B)
      return B.takeError();
    V.StartRatio = objective(*A, Val);
    V.TrainedRatio = objective(*B, Val);
    std::map<std::string, EvictSetResult::Package> ByPkg;
    for (size_t I = 0; I < Val.size(); ++I) {
      auto &P = ByPkg[getModulePackage(Val[I].Name).str()];
      P.Default += Val[I].Default;
      P.Start += (*A)[I];
      P.Trained += (*B)[I];
    }
    for (auto &[Name, P] : ByPkg) {
      P.Name = Name;
      V.Packages.push_back(P);
    }
  }

  // The model, the curve and the report.
  if (Error E =
          writeFileAtomically(O.OutputPath, Result.Trained.toJSONString()))
    return E;
  std::string Curve = "generation,center_objective,best_objective\n";
  for (size_t G = 0; G < Result.Curve.size(); ++G)
    Curve += formatv("{0},{1:f6},{2:f6}\n", G + 1, Result.Curve[G].first,
                     Result.Curve[G].second)
                 .str();
  if (Error E = writeFileAtomically(O.WorkDir + "/curve.csv", Curve))
    return E;
  std::string R;
  raw_string_ostream RS(R);
  RS << "# Eviction training\n\n"
     << formatv("- training modules: {0}; objective (score / LLVM default, "
                "mean): start {1:f5}, trained {2:f5}\n",
                Train.size(), Result.StartObjective, Best);
  RS << formatv("- validation modules: {0}; start {1:f5}, trained {2:f5}\n\n",
                V.Modules, V.StartRatio, V.TrainedRatio);
  if (const std::optional<TieBreakFit> &T = Result.TieBreak) {
    RS << formatv(
              "Tie-breaker (fitted before training): {0} decisions, {1} "
              "with the density erased; {2} pairs, {3:f4} fitted right.\n\n",
              T->Observations, T->Erased, T->Pairs, T->Accuracy)
       << "| feature | weight per log unit |\n|---|---:|\n";
    for (size_t K = 0; K < T->Weights.size(); ++K)
      RS << formatv("| {0} | {1:f4} |\n", getTieBreakFeatures()[K],
                    T->Weights[K]);
    RS << "\n";
  }
  if (!V.Packages.empty()) {
    RS << "| package | LLVM default | start | trained | trained / default |\n"
       << "|---|---:|---:|---:|---:|\n";
    for (const auto &P : V.Packages)
      RS << formatv("| {0} | {1:f1} | {2:f1} | {3:f1} | {4:f4} |\n", P.Name,
                    P.Default, P.Start, P.Trained, P.Trained / P.Default);
  }
  RS << "\n| generation | center | best |\n|---:|---:|---:|\n";
  for (size_t G = 0; G < Result.Curve.size(); ++G)
    RS << formatv("| {0} | {1:f5} | {2:f5} |\n", G + 1, Result.Curve[G].first,
                  Result.Curve[G].second);
  RS.flush();
  if (Error E = writeFileAtomically(O.WorkDir + "/report.md", R))
    return E;
  if (!O.Quiet)
    Log << R;
  return Result;
}

} // namespace

Expected<EvictTrainResult> trainEvictionModel(const EvictTrainOptions &O,
                                              raw_ostream &Log) {
  return Trainer(O, Log).run();
}

Expected<EvictEvalResult> evaluateEvictionModel(const EvictEvalOptions &E,
                                                raw_ostream &Log) {
  EvictTrainOptions O;
  O.CorpusDir = E.CorpusDir;
  O.WorkDir = E.WorkDir;
  O.InitModelPath = E.ModelPath;
  O.Jobs = E.Jobs;
  O.PluginPath = E.PluginPath;
  O.Quiet = E.Quiet;
  Trainer T(O, Log);
  Expected<Model> M = Model::load(E.ModelPath);
  if (!M)
    return M.takeError();
  if (!M->Decision.isPerColumn())
    return makeError("'" + E.ModelPath +
                     "': not an eviction model (a per-column model with a "
                     "masked_argmax decision)");
  for (StringRef Dir : {"", "/ir", "/candidates"})
    if (std::error_code EC = sys::fs::create_directories(E.WorkDir + Dir))
      return makeError("cannot create '" + E.WorkDir + Dir +
                       "': " + EC.message());
  if (Error Err = T.Cache.open(E.WorkDir + "/scores.tsv"))
    return Err;
  Expected<CorpusDescription> D = CorpusDescription::read(E.CorpusDir);
  if (!D)
    return D.takeError();
  StringSet<> Wanted(E.Packages);
  std::map<std::string, size_t> Taken;
  std::vector<std::string> Names;
  for (const std::string &Name : D->Modules) {
    std::string Pkg = getModulePackage(Name).str();
    if (!Wanted.empty() && !Wanted.contains(Pkg))
      continue;
    if (E.ModulesPerPackage && Taken[Pkg] >= E.ModulesPerPackage)
      continue;
    ++Taken[Pkg];
    Names.push_back(Name);
  }
  for (const std::string &P : E.Packages)
    if (!Taken.count(P))
      return makeError("'" + E.CorpusDir + "' has no package '" + P + "'");
  std::vector<TrainModule> Set;
  if (!E.Quiet)
    Log << "mlgo eval regalloc: " << Names.size()
        << " modules (opt-19 -O2, stock llc-19 scores)\n";
  if (Error Err = T.prepare(Names, Names.size(), Set, "evaluation",
                            /*KeepFree=*/true))
    return Err;
  std::string Id;
  Expected<std::vector<double>> Scores = T.evaluate(*M, Set, Id);
  if (!Scores)
    return Scores.takeError();
  EvictEvalResult R;
  R.Modules = Set.size();
  R.LeftOut = T.LeftOut;
  std::map<std::string, EvictEvalResult::Package> ByPkg;
  double RatioSum = 0;
  size_t RatioCount = 0;
  for (size_t I = 0; I < Set.size(); ++I) {
    auto &P = ByPkg[getModulePackage(Set[I].Name).str()];
    ++P.Modules;
    P.Default += Set[I].Default;
    P.Model += (*Scores)[I];
    R.Default += Set[I].Default;
    R.Model += (*Scores)[I];
    R.SameScore += (*Scores)[I] == Set[I].Default;
    if (Set[I].Default > 0) {
      RatioSum += (*Scores)[I] / Set[I].Default;
      ++RatioCount;
    }
  }
  for (auto &[Name, P] : ByPkg) {
    P.Name = Name;
    R.Packages.push_back(P);
  }
  if (RatioCount)
    R.MeanRatio = RatioSum / static_cast<double>(RatioCount);
  return R;
}

} // namespace mlgo::regalloc
