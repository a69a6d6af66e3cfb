//===- EvictionScorer.cpp - Models scored on a corpus ---------------------===//
//
// The modules, the compiles and the score cache of the eviction trainer and
// of `mlgo eval regalloc`; see mlgo/RegAllocTrain/EvictionScorer.h. Moved
// out of the trainer so that evaluation uses the same object instead of a
// trainer built from faked options.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocTrain/EvictionScorer.h"

#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/RegAlloc/Score.h"
#include "mlgo/RegAllocTrain/SpeedReward.h"
#include "mlgo/Support/Bytes.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Parallel.h"
#include "mlgo/Support/Process.h"
#include "mlgo/Support/Tasks.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

using namespace llvm;

namespace mlgo::regalloc {

//===-- The score cache ---------------------------------------------------===//

static std::string cacheKey(StringRef Id, StringRef Module) {
  return (Id + "\t" + Module).str();
}

Error ScoreCache::readLine(StringRef Line, const LineLocation &Where) {
  SmallVector<StringRef, 3> F;
  Line.split(F, '\t');
  double V;
  if (F.size() != 3 || F[0].empty() || F[1].empty() || F[2].getAsDouble(V))
    return Where.malformed();
  Scores[cacheKey(F[0], F[1])] = V;
  return Error::success();
}

Error ScoreCache::open(StringRef Path) {
  std::lock_guard<std::mutex> Lock(Mutex);
  return File.open(Path, [&](StringRef Line, const LineLocation &Where) {
    return readLine(Line, Where);
  });
}

std::optional<double> ScoreCache::find(StringRef Id, StringRef Module) const {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Scores.find(cacheKey(Id, Module));
  if (It == Scores.end())
    return std::nullopt;
  return It->second;
}

Error ScoreCache::add(StringRef Id, StringRef Module, double Score) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Scores[cacheKey(Id, Module)] = Score;
  return File.append(
      (Id + "\t" + Module + "\t" + formatv("{0:e17}", Score)).str());
}

size_t ScoreCache::size() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Scores.size();
}

//===-- The reward --------------------------------------------------------===//

/// Each reward's name on the command line (and in a task's arguments).
static constexpr std::pair<const char *, EvictionReward> RewardNames[] = {
    {"static", EvictionReward::Static},
    {"speed", EvictionReward::Speed},
    {"instructions", EvictionReward::Instructions}};

Expected<EvictionReward> parseEvictionReward(StringRef Name) {
  for (const auto &[Known, Reward] : RewardNames)
    if (Name == Known)
      return Reward;
  return makeError("unknown reward '" + Name +
                   "' (static, speed or instructions)");
}

static StringRef getRewardName(EvictionReward R) {
  for (const auto &[Name, Reward] : RewardNames)
    if (Reward == R)
      return Name;
  llvm_unreachable("unknown reward");
}

StringRef describeEvictionReward(EvictionReward R) {
  switch (R) {
  case EvictionReward::Static:
    return "static score";
  case EvictionReward::Speed:
    return "profile-weighted cycles";
  case EvictionReward::Instructions:
    return "profile-weighted instructions";
  }
  llvm_unreachable("unknown reward");
}

static constexpr std::pair<const char *, RatioAggregate::Kind>
    AggregateNames[] = {{"mean", RatioAggregate::Kind::Mean},
                        {"max", RatioAggregate::Kind::Max},
                        {"softmax", RatioAggregate::Kind::Softmax}};

Expected<RatioAggregate::Kind> parseRatioAggregate(StringRef Name) {
  for (const auto &[Known, Kind] : AggregateNames)
    if (Name == Known)
      return Kind;
  return makeError("unknown aggregate '" + Name + "' (mean, max or softmax)");
}

StringRef getRatioAggregateName(RatioAggregate::Kind K) {
  for (const auto &[Name, Kind] : AggregateNames)
    if (Kind == K)
      return Name;
  llvm_unreachable("unknown aggregate");
}

double aggregateRatios(ArrayRef<double> Ratios, const RatioAggregate &A) {
  assert(!Ratios.empty() && "no ratio to aggregate");
  double N = static_cast<double>(Ratios.size());
  double Max = *std::max_element(Ratios.begin(), Ratios.end());
  switch (A.TheKind) {
  case RatioAggregate::Kind::Mean: {
    double Sum = 0;
    for (double R : Ratios)
      Sum += R;
    return Sum / N;
  }
  case RatioAggregate::Kind::Max:
    return Max;
  case RatioAggregate::Kind::Softmax: {
    assert(A.Temperature > 0 && "the temperature must be positive");
    // Shifted by the max, so that no exponent overflows and the largest
    // term is exactly 1.
    double Sum = 0;
    for (double R : Ratios)
      Sum += std::exp((R - Max) / A.Temperature);
    return Max + A.Temperature * std::log(Sum / N);
  }
  }
  llvm_unreachable("unknown aggregate");
}

double evictionObjective(ArrayRef<double> Scores, ArrayRef<ScoredModule> Set,
                         EvictionReward Reward, const RatioAggregate &A) {
  std::vector<double> Ratios;
  if (!usesProfile(Reward)) {
    for (size_t I = 0; I < Set.size(); ++I)
      Ratios.push_back(Scores[I] / Set[I].Default);
  } else {
    // std::map: packages in name order, so the sum is the same every time.
    std::map<std::string, std::pair<double, double>> ByPackage;
    for (size_t I = 0; I < Set.size(); ++I) {
      auto &[Model, Default] = ByPackage[Set[I].Package];
      Model += Scores[I];
      Default += Set[I].Default;
    }
    for (const auto &[Package, Sums] : ByPackage)
      if (Sums.second > 0)
        Ratios.push_back(Sums.first / Sums.second);
  }
  return Ratios.empty() ? 1 : aggregateRatios(Ratios, A);
}

//===-- The scorer --------------------------------------------------------===//

Expected<std::unique_ptr<EvictionScorer>>
EvictionScorer::open(const EvictionScorerOptions &O, raw_ostream &Log) {
  bool Speed = usesProfile(O.Reward);
  for (StringRef Dir : {"", Speed ? "/ir-profiled" : "/ir", "/candidates"})
    if (std::error_code EC = sys::fs::create_directories(O.WorkDir + Dir))
      return makeError("cannot create '" + O.WorkDir + Dir +
                       "': " + EC.message());
  std::unique_ptr<EvictionScorer> S(new EvictionScorer(O, Log));
  if (Speed) {
    Expected<CorpusDescription> D = CorpusDescription::read(O.CorpusDir);
    if (!D)
      return D.takeError();
    for (const auto &[Package, Path] : D->Profiles)
      S->Profiles[Package] = *D->getProfilePath(O.CorpusDir, Package);
    if (O.UseBlockCounts)
      for (const auto &[Package, Path] : D->BlockCounts)
        S->BlockCounts[Package] = *D->getBlockCountsPath(O.CorpusDir, Package);
    if (S->Profiles.empty())
      return makeError("'" + O.CorpusDir +
                       "' has no profile (the speed reward needs packages "
                       "with one: mlgo corpus profile)");
  }
  // The rewards keep apart caches: a score is a number of one kind. The
  // speed caches are named after the estimate (block counts solved from
  // branch probabilities since 2026-11-26: the files of the frequency-based
  // estimate, speed-scores.tsv and instruction-scores.tsv, are never read).
  std::string CacheName = O.Reward == EvictionReward::Static ? "scores"
                          : O.Reward == EvictionReward::Speed
                              ? "speed-cycles"
                              : "speed-instructions";
  // Scores with block counts are scores of other numbers: their cache is
  // named after the counts' contents (a corpus given new counts starts a
  // new cache). "counts2": since 2026-11-27 a block the counts do not have
  // is scaled like its measured neighbours (measureExecutionCost); the
  // "counts-" files of the bare profile count are never read.
  if (!S->BlockCounts.empty()) {
    MD5 H;
    for (const auto &[Package, Path] : S->BlockCounts) {
      Expected<std::unique_ptr<MemoryBuffer>> Bytes = readWholeFile(Path);
      if (!Bytes)
        return Bytes.takeError();
      H.update(Package);
      H.update((*Bytes)->getBuffer());
    }
    MD5::MD5Result R;
    H.final(R);
    CacheName += "-counts2-" + R.digest().str().substr(0, 12).str();
  }
  if (Error E = S->Cache.open(O.WorkDir + "/" + CacheName + ".tsv"))
    return E;
  return S;
}

std::string EvictionScorer::getCandidatePath(StringRef Id) const {
  return (Options.WorkDir + "/candidates/" + Id + ".json").str();
}

Expected<std::string> EvictionScorer::writeCandidate(const Model &Candidate) {
  std::string Text = Candidate.toJSONString();
  MD5 H;
  H.update(Text);
  MD5::MD5Result R;
  H.final(R);
  std::string Id = R.digest().str().substr(0, 16).str();
  std::string Path = getCandidatePath(Id);
  if (!sys::fs::exists(Path))
    if (Error E = writeFileAtomically(Path, Text))
      return E;
  return Id;
}

namespace {
/// \p Path's block counts, read once per process: every module of a package
/// is scored with the same file, once per candidate.
Expected<std::shared_ptr<const speed::MeasuredCounts>>
readCountsOnce(const std::string &Path) {
  static std::mutex Mutex;
  static std::map<std::string, std::shared_ptr<const speed::MeasuredCounts>>
      Read;
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Read.find(Path);
  if (It != Read.end())
    return It->second;
  Expected<speed::MeasuredCounts> Counts = speed::readMeasuredCounts(Path);
  if (!Counts)
    return Counts.takeError();
  auto Shared =
      std::make_shared<const speed::MeasuredCounts>(std::move(*Counts));
  Read.emplace(Path, Shared);
  return Shared;
}

/// Task "regalloc-score": Args are the reward's name ("static", "speed",
/// "instructions"), the optimized module, the block counts of its package
/// ("" for none), and, for a model, the plugin and the model file. Answers
/// the score as 8 bytes (f64, bit for bit).
Expected<std::string> runRegallocScore(ArrayRef<std::string> Args) {
  if (Args.size() != 3 && Args.size() != 5)
    return makeError("regalloc-score: malformed arguments");
  Expected<EvictionReward> Reward = parseEvictionReward(Args[0]);
  if (!Reward)
    return Reward.takeError();
  StringRef IRPath = Args[1];
  LLCOptions LO;
  if (Args.size() == 5) {
    LO.ExtraArgs.push_back("-load=" + Args[3]);
    LO.ExtraArgs.push_back("-mlgo-evict-model=" + Args[4]);
  }
  double Score = 0;
  if (usesProfile(*Reward)) {
    std::shared_ptr<const speed::MeasuredCounts> Counts;
    if (!Args[2].empty()) {
      Expected<std::shared_ptr<const speed::MeasuredCounts>> Read =
          readCountsOnce(Args[2]);
      if (!Read)
        return Read.takeError();
      Counts = std::move(*Read);
    }
    Expected<speed::ObjectCost> C =
        costProfiledIR(IRPath, LO, nullptr, Counts.get());
    if (!C)
      return C.takeError();
    Score = *Reward == EvictionReward::Speed ? C->Cycles : C->Instructions;
  } else {
    Expected<ModuleScore> S = compileAndScore(IRPath, LO);
    if (!S)
      return S.takeError();
    Score = S->Score;
  }
  ByteWriter W;
  W.putF64(Score);
  return toStringRef(W.Bytes).str();
}

RegisterTask RegallocScore("regalloc-score", runRegallocScore);

/// Task "regalloc-optimize": Args are a module's bitcode. Answers what
/// `opt-19 -O2` makes of it (bitcode), so that the modules are optimized
/// where the compiles run and only rank 0 writes them to the work
/// directory.
Expected<std::string> runRegallocOptimize(ArrayRef<std::string> Args) {
  if (Args.size() != 1)
    return makeError("regalloc-optimize: malformed arguments");
  SmallString<128> Out;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-regalloc", "bc", Out))
    return makeError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveOut(Out);
  RunOptions RO;
  RO.TimeoutSeconds = 300;
  RO.Stderr = std::string("/dev/null");
  ProcessResult R =
      runProcess({"opt-19", "-O2", Args[0], "-o", std::string(Out)}, RO);
  if (!R.succeeded())
    return makeError("opt-19 -O2 " + R.describe());
  Expected<std::unique_ptr<MemoryBuffer>> Bitcode = readWholeFile(Out);
  if (!Bitcode)
    return Bitcode.takeError();
  return (*Bitcode)->getBuffer().str();
}

RegisterTask RegallocOptimize("regalloc-optimize", runRegallocOptimize);
} // namespace

std::vector<Expected<double>>
EvictionScorer::scoreAll(StringRef Id, StringRef ModelPath,
                         ArrayRef<const ScoredModule *> Set) {
  std::vector<std::optional<double>> Known(Set.size());
  std::vector<Task> Tasks;
  std::vector<size_t> Of;
  for (size_t I = 0; I < Set.size(); ++I) {
    if ((Known[I] = Cache.find(Id, Set[I]->Name)))
      continue;
    Task T;
    T.Kind = "regalloc-score";
    T.Module = Set[I]->Name;
    T.Inputs.push_back(Set[I]->IRPath);
    auto Counts = BlockCounts.find(Set[I]->Package);
    std::string CountsPath =
        Counts == BlockCounts.end() ? std::string() : Counts->second;
    if (!CountsPath.empty())
      T.Inputs.push_back(CountsPath);
    T.Args = {getRewardName(Options.Reward).str(), Set[I]->IRPath, CountsPath};
    if (!ModelPath.empty()) {
      T.Inputs.push_back(ModelPath.str());
      T.Args.push_back(Options.PluginPath);
      T.Args.push_back(ModelPath.str());
    }
    Tasks.push_back(std::move(T));
    Of.push_back(I);
  }
  std::vector<std::string> Errors(Set.size());
  // Every score goes to the cache as soon as it is known: a run stopped
  // mid-batch loses none.
  runTasks(Tasks, Options.Jobs, nullptr, [&](size_t K, const TaskOutcome &O) {
    size_t I = Of[K];
    const ScoredModule &M = *Set[I];
    if (!O.ok()) {
      Errors[I] =
          usesProfile(Options.Reward) ? M.Name + ": " + O.Error : O.Error;
      return;
    }
    double Score = 0;
    ByteReader R(*O.Result);
    if (!R.getF64(Score) || R.remaining()) {
      Errors[I] = M.Name + ": regalloc-score: malformed answer";
      return;
    }
    if (Error E = Cache.add(Id, M.Name, Score)) {
      Errors[I] = toString(std::move(E));
      return;
    }
    Known[I] = Score;
  });
  std::vector<Expected<double>> Scores;
  for (size_t I = 0; I < Set.size(); ++I) {
    if (Known[I])
      Scores.push_back(*Known[I]);
    else
      Scores.push_back(makeError(Errors[I]));
  }
  return Scores;
}

Error EvictionScorer::prepare(ArrayRef<std::string> Candidates, size_t Want,
                              std::vector<ScoredModule> &Out, StringRef What,
                              bool KeepFree) {
  // Optimize and score candidates in batches until Want have a non-zero
  // default score.
  // Per profiled package: modules examined, and those the workload ran.
  std::map<std::string, std::pair<size_t, size_t>> RunByPackage;
  size_t Next = 0;
  while (Out.size() < Want && Next < Candidates.size()) {
    size_t N = std::min(Candidates.size() - Next, Want - Out.size() + 4);
    std::vector<ScoredModule> Batch(N);
    std::vector<std::string> Errors(N), Skipped(N);
    std::vector<char> NoProfile(N, 0), NotRun(N, 0), Ready(N, 0),
        Unoptimized(N, 0);
    bool Speed = usesProfile(Options.Reward);
    runJobs(N, Options.Jobs, [&](size_t I) {
      ScoredModule &M = Batch[I];
      M.Name = Candidates[Next + I];
      M.Package = getModulePackage(M.Name).str();
      std::string Flat = M.Name;
      std::replace(Flat.begin(), Flat.end(), '/', '@');
      M.IRPath =
          Options.WorkDir + (Speed ? "/ir-profiled/" : "/ir/") + Flat + ".bc";
      if (Speed) {
        auto Profile = Profiles.find(M.Package);
        if (Profile == Profiles.end()) {
          NoProfile[I] = 1;
          return;
        }
        // A profile that does not match its package's module is an error
        // naming both, never a module quietly left out. A function the
        // profile does not know belongs to a program the workload never
        // ran (bzip2recover in bzip2's tests): a module of only such
        // functions is skipped and counted, and a package whose every
        // examined module is one is an error (below).
        // The functions whose counts clang dropped (a control flow the
        // profile does not match) are kept beside the IR, written after
        // it: a module is prepared once that file exists.
        std::string MismatchPath = M.IRPath + ".mismatches";
        if (!sys::fs::exists(MismatchPath)) {
          std::vector<std::string> Found;
          if (Error E =
                  applyProfile(getModuleFile(Options.CorpusDir, M.Name, ".bc"),
                               Profile->second, M.IRPath, 300,
                               ProfileMatch::Package, &Found)) {
            Errors[I] = toString(std::move(E));
            return;
          }
          std::string Text;
          for (const std::string &F : Found)
            Text += StringRef(F).rsplit(": ").second.str() + "\n";
          if (Error E = writeFileAtomically(MismatchPath, Text)) {
            Errors[I] = toString(std::move(E));
            return;
          }
        }
        Expected<std::unique_ptr<MemoryBuffer>> Mismatched =
            readWholeFile(MismatchPath);
        if (!Mismatched) {
          Errors[I] = toString(Mismatched.takeError());
          return;
        }
        SmallVector<StringRef> Names;
        (*Mismatched)->getBuffer().split(Names, '\n', -1, false);
        for (StringRef F : Names)
          M.Mismatched.push_back(F.str());
        Expected<bool> Counted = hasProfileCounts(M.IRPath);
        if (!Counted) {
          Errors[I] = toString(Counted.takeError());
          return;
        }
        if (!*Counted) {
          NotRun[I] = 1;
          return;
        }
      } else if (!sys::fs::exists(M.IRPath)) {
        Unoptimized[I] = 1;
        return;
      }
      Ready[I] = 1;
    });
    // opt-19 -O2, as tasks (here, or on the worker ranks); each module is
    // written once its answer is in, so a rerun optimizes only the rest.
    std::vector<Task> Optimize;
    std::vector<size_t> OptimizeOf;
    for (size_t I = 0; I < N; ++I)
      if (Unoptimized[I]) {
        Task T;
        T.Kind = "regalloc-optimize";
        T.Module = Batch[I].Name;
        std::string Bitcode =
            getModuleFile(Options.CorpusDir, Batch[I].Name, ".bc");
        T.Inputs = {Bitcode};
        T.Args = {Bitcode};
        Optimize.push_back(std::move(T));
        OptimizeOf.push_back(I);
      }
    runTasks(Optimize, Options.Jobs, nullptr,
             [&](size_t K, const TaskOutcome &O) {
               size_t I = OptimizeOf[K];
               if (!O.ok()) {
                 Errors[I] = Batch[I].Name + ": " + O.Error;
                 return;
               }
               if (Error E = writeFileAtomically(Batch[I].IRPath, *O.Result)) {
                 Errors[I] = toString(std::move(E));
                 return;
               }
               Ready[I] = 1;
             });
    // The default scores, as tasks (here, or on the worker ranks).
    std::vector<const ScoredModule *> ToScore;
    std::vector<size_t> Of;
    for (size_t I = 0; I < N; ++I)
      if (Ready[I]) {
        ToScore.push_back(&Batch[I]);
        Of.push_back(I);
      }
    std::vector<Expected<double>> Defaults =
        scoreAll("llvm-default", "", ToScore);
    for (size_t K = 0; K < Of.size(); ++K) {
      if (!Defaults[K]) {
        // Not every module's MIR reads back (LLVM's MIR printer and parser
        // do not round-trip every construct): such a module cannot be
        // scored and is left out, which the log says.
        Skipped[Of[K]] = toString(Defaults[K].takeError());
        continue;
      }
      Batch[Of[K]].Default = *Defaults[K];
    }
    for (size_t I = 0; I < N; ++I) {
      if (!Errors[I].empty())
        return makeError(Errors[I]);
      if (NoProfile[I]) {
        ++WithoutProfile;
        continue;
      }
      for (const std::string &F : Batch[I].Mismatched)
        Mismatched.push_back(Batch[I].Name + ": " + F);
      auto &[Examined, Run] = RunByPackage[Batch[I].Package];
      ++Examined;
      if (NotRun[I]) {
        ++NeverRun;
        continue;
      }
      ++Run;
      if (!Skipped[I].empty()) {
        if (!Options.Quiet)
          Log << "  left out " << Batch[I].Name << ": " << Skipped[I] << "\n";
        ++LeftOut;
        continue;
      }
      if ((KeepFree || Batch[I].Default > 0) && Out.size() < Want)
        Out.push_back(std::move(Batch[I]));
    }
    Next += N;
  }
  // A profile that knows no function of its package is not its profile:
  // never a package whose reward is silently 0.
  for (const auto &[Package, Counts] : RunByPackage)
    if (Counts.first > 0 && Counts.second == 0)
      return makeError(Profiles[Package] + ": knows no function of the " +
                       Twine(Counts.first) + " module(s) of package '" +
                       Package + "' examined: not its profile");
  if (Out.empty() && !KeepFree)
    return makeError("no " + What + " module of '" + Options.CorpusDir +
                     "' has register-allocation cost to learn from");
  return Error::success();
}

Expected<std::vector<double>>
EvictionScorer::score(const Model &Candidate, ArrayRef<ScoredModule> Set) {
  Expected<std::string> Id = writeCandidate(Candidate);
  if (!Id)
    return Id.takeError();
  std::string Path = getCandidatePath(*Id);
  std::vector<const ScoredModule *> Modules;
  for (const ScoredModule &M : Set)
    Modules.push_back(&M);
  std::vector<Expected<double>> Got = scoreAll(*Id, Path, Modules);
  std::vector<double> Scores;
  for (Expected<double> &S : Got) {
    if (!S) {
      // The first error; the others are consumed with their results.
      Error E = S.takeError();
      for (Expected<double> &Rest : Got)
        if (!Rest)
          consumeError(Rest.takeError());
      return E;
    }
    Scores.push_back(*S);
  }
  return Scores;
}

} // namespace mlgo::regalloc
