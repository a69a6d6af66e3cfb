//===- lib/Compile/DecisionLog.cpp - An inlining log, decoded
//---------------===//

#include "mlgo/Compile/DecisionLog.h"

#include "mlgo/Log/ByteSource.h"
#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Model/InlineFeatureNames.h"
#include "mlgo/Support/Error.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace llvm;

namespace mlgo {

Expected<DecisionLog> parseDecisionLog(StringRef Log, StringRef Name) {
  auto Reader = LogReader::create(
      createMemorySource(MemoryBuffer::getMemBuffer(Log, "", false)), Name);
  if (!Reader)
    return Reader.takeError();
  const LogHeader &H = (*Reader)->getHeader();
  std::optional<size_t> DecisionIndex =
      H.findFeature(InlineDecisionFeatureName);
  std::optional<size_t> DefaultIndex = H.findFeature(InlineDefaultFeatureName);
  if (!DecisionIndex || !DefaultIndex)
    return makeError(Name + ": no " + InlineDecisionFeatureName + "/" +
                     InlineDefaultFeatureName);
  DecisionLog L;
  for (size_t F = 0; F < H.Features.size(); ++F) {
    const TensorSpec &S = H.Features[F];
    if (S.type() != TensorType::Int64 || S.getElementCount() != 1)
      return makeError(Name + ": feature '" + S.name() +
                       "' is not int64_t [1]");
    if (F != *DecisionIndex)
      L.Specs.push_back(S);
  }
  L.DefaultColumn = *DefaultIndex - (*DecisionIndex < *DefaultIndex ? 1 : 0);
  while (true) {
    Expected<const LogRecord &> Rec = (*Reader)->next();
    if (!Rec)
      return Rec.takeError();
    if (Rec->TheKind == LogRecord::Kind::End)
      break;
    if (Rec->TheKind != LogRecord::Kind::Observation)
      continue;
    for (size_t F = 0; F < H.Features.size(); ++F) {
      int64_t V;
      std::memcpy(&V, (*Reader)->getFeatureData(F), sizeof(V));
      if (F == *DecisionIndex)
        L.Decisions.push_back(V != 0);
      else
        L.Features.push_back(V);
      if (F == *DefaultIndex)
        L.Defaults.push_back(V != 0);
    }
  }
  return L;
}

Expected<std::vector<float>> readLoggedScores(StringRef Log, StringRef Name) {
  auto Reader = LogReader::create(
      createMemorySource(MemoryBuffer::getMemBuffer(Log, "", false)), Name);
  if (!Reader)
    return Reader.takeError();
  std::vector<float> Scores;
  while (true) {
    Expected<const LogRecord &> Rec = (*Reader)->next();
    if (!Rec)
      return Rec.takeError();
    if (Rec->TheKind == LogRecord::Kind::End)
      return Scores;
    if (Rec->TheKind != LogRecord::Kind::Outcome)
      continue;
    if (Rec->Data.size() != sizeof(float))
      return makeError(Name + ": a decision's outcome is " +
                       Twine(Rec->Data.size()) +
                       " bytes, not one float (delta_size)");
    float V;
    std::memcpy(&V, Rec->Data.data(), sizeof(V));
    Scores.push_back(V);
  }
}

} // namespace mlgo
