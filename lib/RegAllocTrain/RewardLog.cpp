//===- RewardLog.cpp - Eviction logs with rewards
//--------------------------===//
//
// See mlgo/RegAllocTrain/RewardLog.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocTrain/RewardLog.h"

#include "mlgo/Log/TrainingLog.h"
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

Expected<RewardLogSummary> writeRewardLog(StringRef IRPath, StringRef OutPath,
                                          const RewardLogOptions &Options) {
  TemporaryFile Decisions{(OutPath + ".decisions.tmp").str()};
  sys::fs::remove(Decisions.Path);
  LLCOptions LO = Options.LLC;
  LO.ExtraArgs.push_back("-load=" + Options.PluginPath);
  LO.ExtraArgs.push_back("-mlgo-evict");
  if (!Options.ModelPath.empty())
    LO.ExtraArgs.push_back("-mlgo-evict-model=" + Options.ModelPath);
  LO.ExtraArgs.push_back("-mlgo-evict-training-log=" + Decisions.Path);
  Expected<std::string> MIR = compileToMIR(IRPath, LO);
  if (!MIR)
    return MIR.takeError();
  if (!sys::fs::exists(Decisions.Path))
    return makeError(IRPath + ": no function reaches the eviction advisor "
                              "(nothing to allocate): there is no log to "
                              "write");
  Expected<ModuleScore> Scores =
      scoreMIR(MemoryBufferRef(*MIR, (IRPath + " (llc-19's MIR)").str()));
  if (!Scores)
    return Scores.takeError();
  StringMap<double> ByFunction;
  for (const FunctionScore &F : Scores->Functions)
    ByFunction[F.Name] = F.Score;

  RewardLogSummary Summary;
  Summary.Score = Scores->Score;
  std::string Bytes;
  {
    Expected<std::unique_ptr<LogReader>> R = LogReader::open(Decisions.Path);
    if (!R)
      return R.takeError();
    const LogHeader &H = (*R)->getHeader();
    auto OS = std::make_unique<raw_string_ostream>(Bytes);
    raw_string_ostream *Stream = OS.get();
    LogWriter W(std::move(OS), H.Features,
                TensorSpec::createSpec<float>("reward", {1}));
    std::vector<const void *> Buffers(H.Features.size());
    bool Decided = false;
    // The reward of the current context, after its last observation.
    auto Reward = [&]() -> Error {
      if (!Decided)
        return Error::success();
      auto It = ByFunction.find(W.currentContext());
      if (It == ByFunction.end())
        return makeError(IRPath + ": the log names function '" +
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
