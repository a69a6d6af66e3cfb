//===- tools/mlgo/LogCommands.cpp - mlgo log dump / mlgo log stats --------===//
//
// Human-readable views of a training log (the format of LLVM's
// TrainingLogger, see mlgo/Log/TrainingLog.h). Both commands stream: they
// read a file, a pipe or standard input ("-") record by record, so they can
// watch a live compiler.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Log/TrainingLog.h"

#include "mlgo/Support/Files.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::SubCommand DumpCmd("log dump",
                       "Print a training log: contexts, observations and "
                       "one 'name: v1,v2' line per tensor");
cl::opt<std::string> DumpFile(cl::Positional,
                              cl::desc("<log file, or - for stdin>"),
                              cl::init("-"), cl::sub(DumpCmd),
                              cl::cat(tool::getToolCategory()));

cl::SubCommand StatsCmd("log stats", "Summarize a training log");
cl::opt<std::string> StatsFile(cl::Positional,
                               cl::desc("<log file, or - for stdin>"),
                               cl::init("-"), cl::sub(StatsCmd),
                               cl::cat(tool::getToolCategory()));

int runDump() {
  auto Reader = LogReader::open(DumpFile);
  if (!Reader)
    return fail(Reader.takeError());
  LogReader &R = **Reader;
  const LogHeader &H = R.getHeader();
  raw_ostream &OS = outs();
  // The plugin writes each decision's call site beside a log it writes
  // (<log>.sites, one line per decision: caller callee ordinal).
  std::vector<std::string> Sites;
  if (DumpFile != "-" && sys::fs::exists(DumpFile + ".sites")) {
    Expected<std::unique_ptr<MemoryBuffer>> Buf =
        readWholeFile(DumpFile + ".sites");
    if (!Buf)
      return fail(Buf.takeError());
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef L : Lines) {
      SmallVector<StringRef, 3> F;
      L.split(F, ' ');
      if (F.size() != 3)
        return fail(DumpFile + ".sites: malformed line '" + L + "'");
      Sites.push_back((F[0] + " -> " + F[1] + " #" + F[2]).str());
    }
  }
  OS << "features:";
  for (const TensorSpec &S : H.Features)
    OS << ' ' << S.name();
  OS << '\n';
  if (H.Score)
    OS << "score: " << H.Score->toJSONString() << '\n';
  if (H.Advice)
    OS << "advice: " << H.Advice->toJSONString() << '\n';
  while (true) {
    auto Rec = R.next();
    if (!Rec) {
      OS.flush();
      return fail(Rec.takeError());
    }
    switch (Rec->TheKind) {
    case LogRecord::Kind::End:
      return 0;
    case LogRecord::Kind::Context:
      OS << "context: " << Rec->Context << '\n';
      break;
    case LogRecord::Kind::Observation:
      OS << "observation: " << Rec->Index << '\n';
      if (Rec->Index < Sites.size())
        OS << "site: " << Sites[Rec->Index] << '\n';
      for (size_t I = 0; I < H.Features.size(); ++I)
        OS << H.Features[I].name() << ": "
           << tensorValueToString(R.getFeatureData(I), H.Features[I]) << '\n';
      break;
    case LogRecord::Kind::Outcome:
      OS << "outcome: " << Rec->Index << '\n'
         << H.Score->name() << ": "
         << tensorValueToString(Rec->Data.data(), *H.Score) << '\n';
      break;
    }
  }
}

/// Running min/max/mean of every element of one tensor, in double.
struct FeatureStats {
  double Min = INFINITY, Max = -INFINITY, Sum = 0;
  uint64_t Count = 0;
  void add(double V) {
    Min = std::min(Min, V);
    Max = std::max(Max, V);
    Sum += V;
    ++Count;
  }
};

double elementAsDouble(const char *P, TensorType T) {
  switch (T) {
#define MLGO_ELEMENT_AS_DOUBLE(CType, Name)                                    \
  case TensorType::Name: {                                                     \
    CType V;                                                                   \
    std::memcpy(&V, P, sizeof(V));                                             \
    return static_cast<double>(V);                                             \
  }
    MLGO_TENSOR_TYPES(MLGO_ELEMENT_AS_DOUBLE)
#undef MLGO_ELEMENT_AS_DOUBLE
  case TensorType::Invalid:
    break;
  }
  return 0;
}

int runStats() {
  auto Reader = LogReader::open(StatsFile);
  if (!Reader)
    return fail(Reader.takeError());
  LogReader &R = **Reader;
  const LogHeader &H = R.getHeader();
  std::vector<FeatureStats> Stats(H.Features.size());
  FeatureStats Score;
  std::map<std::string, uint64_t> PerContext;
  uint64_t Observations = 0, Outcomes = 0, ContextLines = 0;
  // Value histogram of the last feature (the decision, when logging).
  std::map<double, uint64_t> LastFeatureValues;
  while (true) {
    auto Rec = R.next();
    if (!Rec)
      return fail(Rec.takeError());
    if (Rec->TheKind == LogRecord::Kind::End)
      break;
    if (Rec->TheKind == LogRecord::Kind::Context) {
      ++ContextLines;
      PerContext.emplace(Rec->Context, 0);
      continue;
    }
    if (Rec->TheKind == LogRecord::Kind::Outcome) {
      ++Outcomes;
      Score.add(elementAsDouble(Rec->Data.data(), H.Score->type()));
      continue;
    }
    ++Observations;
    ++PerContext[Rec->Context];
    for (size_t I = 0; I < H.Features.size(); ++I) {
      const TensorSpec &S = H.Features[I];
      const char *P = R.getFeatureData(I);
      for (size_t E = 0; E < S.getElementCount(); ++E)
        Stats[I].add(elementAsDouble(P + E * S.getElementByteSize(), S.type()));
      if (I + 1 == H.Features.size() && S.getElementCount() == 1 &&
          LastFeatureValues.size() <= 16)
        ++LastFeatureValues[elementAsDouble(P, S.type())];
    }
  }
  raw_ostream &OS = outs();
  OS << "log: " << R.getName() << '\n'
     << "bytes: " << R.getOffset() << '\n'
     << "features: " << H.Features.size() << " (" << H.getObservationSize()
     << " bytes per observation)\n"
     << "score: " << (H.Score ? H.Score->name() : std::string("none")) << '\n'
     << "advice: " << (H.Advice ? H.Advice->name() : std::string("none"))
     << '\n'
     << "contexts: " << PerContext.size() << " (" << ContextLines
     << " context lines)\n"
     << "observations: " << Observations << '\n'
     << "outcomes: " << Outcomes << '\n';
  if (!PerContext.empty()) {
    auto [MinIt, MaxIt] = std::minmax_element(
        PerContext.begin(), PerContext.end(),
        [](const auto &A, const auto &B) { return A.second < B.second; });
    OS << "observations per context: min " << MinIt->second << " ('"
       << MinIt->first << "'), max " << MaxIt->second << " ('" << MaxIt->first
       << "')\n";
  }
  if (Outcomes)
    OS << "score " << H.Score->name() << ": min " << Score.Min << ", max "
       << Score.Max << ", mean " << format("%.6g", Score.Sum / Score.Count)
       << '\n';
  if (!H.Features.empty() && !LastFeatureValues.empty() &&
      LastFeatureValues.size() <= 16) {
    OS << "last feature '" << H.Features.back().name() << "' values:";
    for (auto [V, N] : LastFeatureValues)
      OS << ' ' << V << " x" << N;
    OS << '\n';
  }
  if (Observations) {
    OS << "feature                                             min            "
          "max           mean\n";
    for (size_t I = 0; I < H.Features.size(); ++I)
      OS << format("%-40s %14.6g %14.6g %14.6g\n", H.Features[I].name().c_str(),
                   Stats[I].Min, Stats[I].Max, Stats[I].Sum / Stats[I].Count);
  }
  return 0;
}

tool::RegisterGroup RegisterLog("log", "Read training logs");
tool::RegisterSubcommand RegisterDump(DumpCmd, runDump);
tool::RegisterSubcommand RegisterStats(StatsCmd, runStats);

} // namespace
