//===- RewardLog.cpp - Eviction logs with rewards
//--------------------------===//
//
// See mlgo/RegAllocTrain/RewardLog.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocTrain/RewardLog.h"

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/RegAllocTrain/SpeedReward.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace mlgo::regalloc {

namespace {

/// Removes a file when it goes out of scope.
struct TemporaryFile {
  std::string Path;
  ~TemporaryFile() { sys::fs::remove(Path); }
};

} // namespace

StringRef getRewardName(const RewardLogOptions &Options) {
  return Options.Profile.empty() ? "reward" : "profile_cycles";
}

Expected<RewardLogSummary> writeRewardLog(StringRef InputPath,
                                          StringRef OutPath,
                                          const RewardLogOptions &Options) {
  TemporaryFile Decisions{(OutPath + ".decisions.tmp").str()};
  sys::fs::remove(Decisions.Path);
  // With a profile, llc compiles the module with the profile applied.
  TemporaryFile Profiled{(OutPath + ".profiled.tmp.bc").str()};
  StringRef IRPath = InputPath;
  if (!Options.Profile.empty()) {
    if (Error E = applyProfile(InputPath, Options.Profile, Profiled.Path,
                               Options.LLC.TimeoutSeconds))
      return E;
    IRPath = Profiled.Path;
  }
  LLCOptions ObjectLO = Options.LLC;
  ObjectLO.ExtraArgs.push_back("-load=" + Options.PluginPath);
  ObjectLO.ExtraArgs.push_back("-mlgo-evict");
  if (!Options.ModelPath.empty())
    ObjectLO.ExtraArgs.push_back("-mlgo-evict-model=" + Options.ModelPath);
  // costProfiledIR adds the address-map flags to the object's compile, in
  // the same place.
  LLCOptions LO = Options.Profile.empty() ? ObjectLO : withAddressMap(ObjectLO);
  LO.ExtraArgs.push_back("-mlgo-evict-training-log=" + Decisions.Path);
  Expected<std::string> MIR = compileToMIR(IRPath, LO);
  if (!MIR)
    return MIR.takeError();
  if (!sys::fs::exists(Decisions.Path))
    return makeError(InputPath + ": no function reaches the eviction advisor "
                                 "(nothing to allocate): there is no log to "
                                 "write");
  RewardLogSummary Summary;
  StringMap<double> ByFunction;
  if (Options.Profile.empty()) {
    Expected<ModuleScore> Scores =
        scoreMIR(MemoryBufferRef(*MIR, (InputPath + " (llc-19's MIR)").str()));
    if (!Scores)
      return Scores.takeError();
    for (const FunctionScore &F : Scores->Functions)
      ByFunction[F.Name] = F.Score;
    Summary.Score = Scores->Score;
  } else {
    // The same compile to the end (its own copy of the decisions, thrown
    // away): the object of the allocation the log records.
    TemporaryFile Again{(OutPath + ".again.tmp").str()};
    ObjectLO.ExtraArgs.push_back("-mlgo-evict-training-log=" + Again.Path);
    Expected<speed::ObjectCost> Cost = costProfiledIR(IRPath, ObjectLO);
    if (!Cost)
      return makeError(InputPath + ": " + toString(Cost.takeError()));
    for (const speed::FunctionCost &F : Cost->Functions)
      ByFunction[F.Name] = F.Cycles;
    Summary.Score = Cost->Cycles;
  }

  std::string Bytes;
  {
    Expected<std::unique_ptr<LogReader>> R = LogReader::open(Decisions.Path);
    if (!R)
      return R.takeError();
    const LogHeader &H = (*R)->getHeader();
    auto OS = std::make_unique<raw_string_ostream>(Bytes);
    raw_string_ostream *Stream = OS.get();
    LogWriter W(
        std::move(OS), H.Features,
        TensorSpec::createSpec<float>(getRewardName(Options).str(), {1}));
    std::vector<const void *> Buffers(H.Features.size());
    bool Decided = false;
    // The reward of the current context, after its last observation.
    auto Reward = [&]() -> Error {
      if (!Decided)
        return Error::success();
      auto It = ByFunction.find(W.currentContext());
      if (It == ByFunction.end())
        return makeError(InputPath + ": the log names function '" +
                         W.currentContext() +
                         "', which the MIR does not "
                         "have");
      W.logReward(static_cast<float>(It->second));
      ++Summary.Rewards;
      Decided = false;
      return Error::success();
    };
    while (true) {
      Expected<const LogRecord &> Rec = (*R)->next();
      if (!Rec)
        return Rec.takeError();
      if (Rec->TheKind == LogRecord::Kind::End)
        break;
      if (Rec->TheKind == LogRecord::Kind::Context) {
        if (Error E = Reward())
          return E;
        W.switchContext(Rec->Context);
        ++Summary.Functions;
      } else if (Rec->TheKind == LogRecord::Kind::Observation) {
        for (size_t I = 0; I < Buffers.size(); ++I)
          Buffers[I] = (*R)->getFeatureData(I);
        W.logObservation(Buffers);
        ++Summary.Observations;
        Decided = true;
      }
    }
    if (Error E = Reward())
      return E;
    W.flush();
    Stream->flush();
  }
  if (Error E = writeFileAtomically(OutPath, Bytes))
    return E;
  return Summary;
}

} // namespace mlgo::regalloc
