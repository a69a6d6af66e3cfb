//===- TrainingLog.cpp - LLVM's training log format -----------------------===//
//
// See the format description in mlgo/Log/TrainingLog.h and docs/formats.md.
// The writer emits JSON through llvm::json::OStream exactly as llvm::Logger
// does, so both produce the same bytes for the same calls.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Log/TrainingLog.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/JSONInteger.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cstring>

using namespace llvm;

namespace mlgo {

//===----------------------------------------------------------------------===//
// LogHeader
//===----------------------------------------------------------------------===//

size_t LogHeader::getObservationSize() const {
  size_t Total = 0;
  for (const TensorSpec &S : Features)
    Total += S.getTotalTensorBufferSize();
  return Total;
}

std::optional<size_t> LogHeader::findFeature(StringRef Name) const {
  for (size_t I = 0; I < Features.size(); ++I)
    if (Features[I].name() == Name)
      return I;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// LogWriter
//===----------------------------------------------------------------------===//

LogWriter::LogWriter(std::unique_ptr<raw_ostream> OS,
                     std::vector<TensorSpec> FeatureSpecs,
                     std::optional<TensorSpec> RewardSpec,
                     std::optional<TensorSpec> AdviceSpec)
    : OS(std::move(OS)), FeatureSpecs(std::move(FeatureSpecs)),
      RewardSpec(std::move(RewardSpec)) {
  json::OStream JOS(*this->OS);
  JOS.object([&] {
    JOS.attributeArray("features", [&] {
      for (const TensorSpec &S : this->FeatureSpecs)
        S.toJSON(JOS);
    });
    if (this->RewardSpec) {
      JOS.attributeBegin("score");
      this->RewardSpec->toJSON(JOS);
      JOS.attributeEnd();
    }
    if (AdviceSpec) {
      JOS.attributeBegin("advice");
      AdviceSpec->toJSON(JOS);
      JOS.attributeEnd();
    }
  });
  *this->OS << "\n";
}

LogWriter::~LogWriter() { OS->flush(); }

void LogWriter::switchContext(StringRef Name) {
  CurrentContext = Name.str();
  json::OStream JOS(*OS);
  JOS.object([&] { JOS.attribute("context", Name); });
  *OS << "\n";
}

void LogWriter::startObservation() {
  auto [It, Inserted] = ObservationIDs.insert({CurrentContext, 0});
  size_t ID = Inserted ? 0 : ++It->second;
  json::OStream JOS(*OS);
  JOS.object([&] { JOS.attribute("observation", static_cast<int64_t>(ID)); });
  *OS << "\n";
}

void LogWriter::logTensorValue(size_t FeatureID, const void *RawData) {
  OS->write(static_cast<const char *>(RawData),
            FeatureSpecs[FeatureID].getTotalTensorBufferSize());
}

void LogWriter::endObservation() { *OS << "\n"; }

void LogWriter::logRewardRaw(const void *RawData) {
  assert(RewardSpec && "the header declared no score");
  assert(hasObservationInProgress() && "an outcome needs an observation");
  json::OStream JOS(*OS);
  JOS.object([&] {
    JOS.attribute("outcome", static_cast<int64_t>(
                                 ObservationIDs.find(CurrentContext)->second));
  });
  *OS << "\n";
  OS->write(static_cast<const char *>(RawData),
            RewardSpec->getTotalTensorBufferSize());
  *OS << "\n";
}

void LogWriter::logObservation(ArrayRef<const void *> Buffers) {
  assert(Buffers.size() == FeatureSpecs.size() && "one buffer per feature");
  startObservation();
  for (size_t I = 0; I < Buffers.size(); ++I)
    logTensorValue(I, Buffers[I]);
  endObservation();
}

//===----------------------------------------------------------------------===//
// LogReader
//===----------------------------------------------------------------------===//

// Lines other than the header are short ({"observation":N}, or a context
// name); a cap keeps a corrupt binary file from being slurped as one line.
static constexpr size_t MaxHeaderLine = 64 << 20;
static constexpr size_t MaxRecordLine = 1 << 20;
// The tensor data of one observation (or outcome): LLVM's inliner sends a
// few hundred bytes, its register allocator a few KiB. A header declaring
// more is rejected rather than believed.
static constexpr size_t MaxRecordData = 64 << 20;

Expected<std::unique_ptr<LogReader>>
LogReader::create(std::unique_ptr<ByteSource> Source, StringRef Name) {
  std::unique_ptr<LogReader> R(new LogReader(std::move(Source), Name.str()));
  R->Buffer.resize(1 << 16);
  if (Error E = R->readHeader())
    return E;
  return R;
}

Expected<std::unique_ptr<LogReader>> LogReader::open(StringRef Path) {
  auto Source = openFileSource(Path);
  if (!Source)
    return Source.takeError();
  return create(std::move(*Source), Path == "-" ? "<stdin>" : Path);
}

Error LogReader::makeError(uint64_t Offset, const Twine &Message) const {
  return mlgo::makeError(Name + ": byte " + Twine(Offset) + ": " + Message);
}

Error LogReader::fill() {
  if (BufferPos < BufferEnd || SourceEnded)
    return Error::success();
  auto N = Source->read(Buffer.data(), Buffer.size());
  if (!N)
    return makeError(Consumed, toString(N.takeError()));
  BufferPos = 0;
  BufferEnd = *N;
  if (*N == 0)
    SourceEnded = true;
  return Error::success();
}

Error LogReader::readLine(std::string &Line, bool &AtEnd, size_t MaxLength) {
  Line.clear();
  AtEnd = false;
  uint64_t Start = Consumed;
  while (true) {
    if (Error E = fill())
      return E;
    if (BufferPos == BufferEnd) {
      if (Line.empty()) {
        AtEnd = true;
        return Error::success();
      }
      return makeError(Start, "truncated line: input ended after " +
                                  Twine(Line.size()) +
                                  " bytes, before the terminating newline");
    }
    const char *Begin = Buffer.data() + BufferPos;
    const char *End = Buffer.data() + BufferEnd;
    const char *NL =
        static_cast<const char *>(std::memchr(Begin, '\n', End - Begin));
    size_t Take = (NL ? NL : End) - Begin;
    Line.append(Begin, Take);
    BufferPos += Take + (NL ? 1 : 0);
    Consumed += Take + (NL ? 1 : 0);
    if (NL)
      return Error::success();
    if (Line.size() > MaxLength)
      return makeError(Start, "line longer than " + Twine(MaxLength) +
                                  " bytes; this is not a training log");
  }
}

Expected<size_t> LogReader::readExact(char *Out, size_t Size) {
  size_t Got = 0;
  while (Got < Size) {
    if (Error E = fill())
      return E;
    if (BufferPos == BufferEnd)
      break;
    size_t Take = std::min(Size - Got, BufferEnd - BufferPos);
    std::memcpy(Out + Got, Buffer.data() + BufferPos, Take);
    BufferPos += Take;
    Consumed += Take;
    Got += Take;
  }
  return Got;
}

Error LogReader::readHeader() {
  std::string Line;
  bool AtEnd;
  if (Error E = readLine(Line, AtEnd, MaxHeaderLine))
    return E;
  if (AtEnd)
    return makeError(0, "empty input: expected a JSON header line");
  Expected<json::Value> Parsed = parseJSON(Line);
  if (!Parsed)
    return makeError(0, "bad header: " + toString(Parsed.takeError()));
  const json::Object *Obj = Parsed->getAsObject();
  if (!Obj)
    return makeError(0, "bad header: expected a JSON object");
  const json::Array *Features = Obj->getArray("features");
  if (!Features)
    return makeError(0, "bad header: missing array key 'features'");
  for (const json::Value &V : *Features) {
    auto Spec = TensorSpec::fromJSON(V);
    if (!Spec)
      return makeError(0, "bad header: " + toString(Spec.takeError()));
    Header.Features.push_back(*Spec);
  }
  for (auto [Key, Slot] : {std::pair<StringRef, std::optional<TensorSpec> *>{
                               "score", &Header.Score},
                           {"advice", &Header.Advice}}) {
    const json::Value *V = Obj->get(Key);
    if (!V)
      continue;
    auto Spec = TensorSpec::fromJSON(*V);
    if (!Spec)
      return makeError(0, "bad header: '" + Key +
                              "': " + toString(Spec.takeError()));
    *Slot = *Spec;
  }
  size_t Offset = 0;
  for (const TensorSpec &S : Header.Features) {
    FeatureOffsets.push_back(Offset);
    Offset += S.getTotalTensorBufferSize();
    if (Offset > MaxRecordData)
      return makeError(0, "bad header: an observation would hold more than " +
                              Twine(MaxRecordData) +
                              " bytes of tensor data (feature '" + S.name() +
                              "' ends at byte " + Twine(Offset) + ")");
  }
  if (Header.Score && Header.Score->getTotalTensorBufferSize() > MaxRecordData)
    return makeError(0, "bad header: the score tensor would hold " +
                            Twine(Header.Score->getTotalTensorBufferSize()) +
                            " bytes, more than " + Twine(MaxRecordData));
  return Error::success();
}

Error LogReader::readPayload(const Twine &What, size_t Size,
                             std::vector<char> &Out) {
  uint64_t Start = Consumed;
  // Grow with the bytes that arrive, not with the size the header
  // promises: a truncated stream costs what it holds.
  Out.clear();
  while (Out.size() < Size) {
    size_t Have = Out.size();
    Out.resize(Have + std::min<size_t>(Size - Have, 1 << 16));
    auto Got = readExact(Out.data() + Have, Out.size() - Have);
    if (!Got)
      return Got.takeError();
    if (Have + *Got < Out.size())
      return makeError(Start, "truncated " + What + ": expected " +
                                  Twine(Size) + " bytes of tensor data, got " +
                                  Twine(Have + *Got));
  }
  char NL;
  auto GotNL = readExact(&NL, 1);
  if (!GotNL)
    return GotNL.takeError();
  if (*GotNL == 0)
    return makeError(Consumed, "truncated " + What +
                                   ": input ended before the newline that "
                                   "follows the tensor data");
  if (NL != '\n')
    return makeError(
        Consumed - 1,
        "corrupt " + What + ": expected a newline after " + Twine(Size) +
            " bytes of tensor data, found byte 0x" +
            utohexstr(static_cast<unsigned char>(NL), /*LowerCase=*/true, 2) +
            " (does the header describe the tensors correctly?)");
  return Error::success();
}

Expected<const LogRecord &> LogReader::next() {
  std::string Line;
  bool AtEnd;
  uint64_t Start = Consumed;
  if (Error E = readLine(Line, AtEnd, MaxRecordLine))
    return E;
  Current.Offset = Start;
  Current.Data.clear();
  if (AtEnd) {
    Current.TheKind = LogRecord::Kind::End;
    return Current;
  }
  Expected<json::Value> Parsed = parseJSON(Line);
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return makeError(Start, "expected a JSON line ({\"context\":...}, "
                            "{\"observation\":...} or {\"outcome\":...}), "
                            "found '" +
                                StringRef(Line).take_front(40) + "'");
  }
  const json::Object *Obj = Parsed->getAsObject();
  if (!Obj || Obj->size() != 1)
    return makeError(Start, "expected a JSON object with one key, found '" +
                                StringRef(Line).take_front(40) + "'");
  if (const json::Value *Ctx = Obj->get("context")) {
    std::optional<StringRef> CtxName = Ctx->getAsString();
    if (!CtxName)
      return makeError(Start, "'context' must be a string");
    CurrentContext = CtxName->str();
    HaveContext = true;
    OutcomeAllowed = false;
    Current.TheKind = LogRecord::Kind::Context;
    Current.Context = CurrentContext;
    return Current;
  }
  if (const json::Value *Obs = Obj->get("observation")) {
    std::optional<int64_t> N = getAsInt64(*Obs);
    if (!N)
      return makeError(Start, "'observation' must be an integer");
    if (!HaveContext)
      return makeError(Start, "observation " + Twine(*N) +
                                  " appears before any {\"context\":...} line");
    size_t &Expected = NextObservation[CurrentContext];
    if (*N < 0 || static_cast<size_t>(*N) != Expected)
      return makeError(Start, "observation number out of order in context '" +
                                  CurrentContext + "': expected " +
                                  Twine(Expected) + ", got " + Twine(*N));
    ++Expected;
    if (Error E = readPayload("observation " + Twine(*N),
                              Header.getObservationSize(), Current.Data))
      return E;
    Current.TheKind = LogRecord::Kind::Observation;
    Current.Context = CurrentContext;
    Current.Index = static_cast<size_t>(*N);
    OutcomeAllowed = true;
    return Current;
  }
  if (const json::Value *Out = Obj->get("outcome")) {
    std::optional<int64_t> N = getAsInt64(*Out);
    if (!N)
      return makeError(Start, "'outcome' must be an integer");
    if (!Header.Score)
      return makeError(Start, "outcome " + Twine(*N) +
                                  " found, but the header declares no score");
    size_t Last = NextObservation.lookup(CurrentContext);
    if (!OutcomeAllowed || *N < 0 || static_cast<size_t>(*N) + 1 != Last)
      return makeError(Start, "outcome " + Twine(*N) +
                                  " does not follow observation " + Twine(*N) +
                                  " of context '" + CurrentContext + "'");
    OutcomeAllowed = false;
    if (Error E =
            readPayload("outcome " + Twine(*N),
                        Header.Score->getTotalTensorBufferSize(), Current.Data))
      return E;
    Current.TheKind = LogRecord::Kind::Outcome;
    Current.Context = CurrentContext;
    Current.Index = static_cast<size_t>(*N);
    return Current;
  }
  return makeError(Start, "unknown record '" + Obj->begin()->first.str() +
                              "' (expected context, observation or outcome)");
}

} // namespace mlgo
