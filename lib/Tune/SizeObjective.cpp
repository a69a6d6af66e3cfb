//===- lib/Tune/SizeObjective.cpp - Linked .text as the objective ---------===//
//
// See mlgo/Tune/SizeObjective.h: the compile service measures, the linked
// program judges.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/SizeObjective.h"

#include "mlgo/Compile/CompileService.h"
#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <limits>

using namespace llvm;

namespace mlgo {

Objective::~Objective() = default;
MeasurementDetail::~MeasurementDetail() = default;

Expected<std::vector<Measurement>>
SizeObjective::measure(ArrayRef<Trial> Trials, StringRef What,
                       bool WithTrajectory) {
  std::vector<Measurement> Out(Trials.size());
  std::vector<ModuleRequest> Req;
  std::vector<size_t> Of;
  for (size_t I = 0; I < Trials.size(); ++I) {
    if (Trials[I].Baseline) {
      Out[I].Outcome = Stock[Trials[I].Module];
      continue;
    }
    Req.push_back({Trials[I].Module, Trials[I].Policy});
    Of.push_back(I);
  }
  if (Req.empty())
    return Out;
  if (!WithTrajectory) {
    Expected<std::vector<CompileCache::Entry>> R = S.compile(Req, What);
    if (!R)
      return R.takeError();
    for (size_t J = 0; J < Of.size(); ++J)
      Out[Of[J]].Outcome = std::move((*R)[J]);
    return Out;
  }
  Expected<std::vector<CompileService::SitesResult>> R =
      S.compileWithSites(Req, What);
  if (!R)
    return R.takeError();
  for (size_t J = 0; J < Of.size(); ++J) {
    Out[Of[J]].Outcome = std::move((*R)[J].Entry);
    Out[Of[J]].Trajectory = std::move((*R)[J].Sites);
  }
  return Out;
}

std::vector<LinkedProgram::Change>
SizeObjective::toChanges(ArrayRef<SlotChange> Changes) {
  std::vector<LinkedProgram::Change> Out;
  for (const SlotChange &C : Changes)
    Out.push_back({C.Slot, {C.Outcome->TextSize, C.Outcome->Grouped}});
  return Out;
}

int64_t SizeObjective::delta(size_t Program,
                             ArrayRef<SlotChange> Changes) const {
  return Programs[Program].delta(toChanges(Changes));
}

void SizeObjective::apply(size_t Program, ArrayRef<SlotChange> Changes) {
  Programs[Program].apply(toChanges(Changes));
}

} // namespace mlgo
