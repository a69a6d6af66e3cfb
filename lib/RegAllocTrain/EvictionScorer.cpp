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
#include "mlgo/RegAlloc/Score.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Parallel.h"
#include "mlgo/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"

#include <algorithm>

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

//===-- The scorer --------------------------------------------------------===//

Expected<std::unique_ptr<EvictionScorer>>
EvictionScorer::open(const EvictionScorerOptions &O, raw_ostream &Log) {
  for (StringRef Dir : {"", "/ir", "/candidates"})
    if (std::error_code EC = sys::fs::create_directories(O.WorkDir + Dir))
      return makeError("cannot create '" + O.WorkDir + Dir +
                       "': " + EC.message());
  std::unique_ptr<EvictionScorer> S(new EvictionScorer(O, Log));
  if (Error E = S->Cache.open(O.WorkDir + "/scores.tsv"))
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

Expected<double> EvictionScorer::scoreOne(StringRef Id, StringRef ModelPath,
                                          const ScoredModule &M) {
  if (std::optional<double> S = Cache.find(Id, M.Name))
    return *S;
  LLCOptions LO;
  if (!ModelPath.empty()) {
    LO.ExtraArgs.push_back("-load=" + Options.PluginPath);
    LO.ExtraArgs.push_back(("-mlgo-evict-model=" + ModelPath).str());
  }
  Expected<ModuleScore> S = compileAndScore(M.IRPath, LO);
  if (!S)
    return S.takeError();
  if (Error E = Cache.add(Id, M.Name, S->Score))
    return E;
  return S->Score;
}

Error EvictionScorer::prepare(ArrayRef<std::string> Candidates, size_t Want,
                              std::vector<ScoredModule> &Out, StringRef What,
                              bool KeepFree) {
  // Optimize and score candidates in batches until Want have a non-zero
  // default score.
  size_t Next = 0;
  while (Out.size() < Want && Next < Candidates.size()) {
    size_t N = std::min(Candidates.size() - Next, Want - Out.size() + 4);
    std::vector<ScoredModule> Batch(N);
    std::vector<std::string> Errors(N), Skipped(N);
    runJobs(N, Options.Jobs, [&](size_t I) {
      ScoredModule &M = Batch[I];
      M.Name = Candidates[Next + I];
      std::string Flat = M.Name;
      std::replace(Flat.begin(), Flat.end(), '/', '@');
      M.IRPath = Options.WorkDir + "/ir/" + Flat + ".bc";
      if (!sys::fs::exists(M.IRPath)) {
        std::string Tmp = M.IRPath + ".tmp";
        RunOptions RO;
        RO.TimeoutSeconds = 300;
        RO.Stderr = std::string("/dev/null");
        ProcessResult R = runProcess(
            {"opt-19", "-O2", getModuleFile(Options.CorpusDir, M.Name, ".bc"),
             "-o", Tmp},
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
      Expected<double> S = scoreOne("llvm-default", "", M);
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
  std::vector<double> Scores(Set.size());
  std::vector<std::string> Errors(Set.size());
  runJobs(Set.size(), Options.Jobs, [&](size_t I) {
    Expected<double> S = scoreOne(*Id, Path, Set[I]);
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

} // namespace mlgo::regalloc
