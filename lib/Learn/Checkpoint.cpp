//===- Checkpoint.cpp - Resumable trainer state ---------------------------===//
//
// Named arrays, a deterministic binary encoding with a CRC, and atomic
// writes (see mlgo/Learn/Checkpoint.h for the format).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Checkpoint.h"
#include "mlgo/Support/Bytes.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <unistd.h>

using namespace llvm;

namespace mlgo {
namespace learn {

static constexpr char CheckpointMagic[8] = {'M', 'L', 'G', 'O',
                                            'C', 'K', 'P', 'T'};
static constexpr uint32_t CheckpointVersion = 1;

void Checkpoint::setU64s(StringRef Key, ArrayRef<uint64_t> V) {
  Entry &E = Entries[Key.str()];
  E = Entry();
  E.TheKind = Kind::U64;
  E.Words.assign(V.begin(), V.end());
}

void Checkpoint::setF64s(StringRef Key, ArrayRef<double> V) {
  Entry &E = Entries[Key.str()];
  E = Entry();
  E.TheKind = Kind::F64;
  E.Words.resize(V.size());
  if (!V.empty())
    std::memcpy(E.Words.data(), V.data(), V.size() * sizeof(double));
}

void Checkpoint::setBytes(StringRef Key, StringRef V) {
  Entry &E = Entries[Key.str()];
  E = Entry();
  E.TheKind = Kind::Bytes;
  E.Bytes = V.str();
}

static StringRef kindName(Checkpoint::Kind K) {
  switch (K) {
  case Checkpoint::Kind::U64:
    return "u64";
  case Checkpoint::Kind::F64:
    return "f64";
  case Checkpoint::Kind::Bytes:
    return "bytes";
  }
  return "?";
}

Expected<const Checkpoint::Entry *> Checkpoint::get(StringRef Key,
                                                    Kind K) const {
  auto It = Entries.find(Key.str());
  if (It == Entries.end())
    return makeError("checkpoint has no entry '" + Key + "'");
  if (It->second.TheKind != K)
    return makeError("checkpoint entry '" + Key + "' is " +
                     kindName(It->second.TheKind) + ", expected " +
                     kindName(K));
  return &It->second;
}

Expected<std::vector<uint64_t>> Checkpoint::getU64s(StringRef Key) const {
  Expected<const Entry *> E = get(Key, Kind::U64);
  if (!E)
    return E.takeError();
  return (*E)->Words;
}

Expected<std::vector<double>> Checkpoint::getF64s(StringRef Key) const {
  Expected<const Entry *> E = get(Key, Kind::F64);
  if (!E)
    return E.takeError();
  std::vector<double> Out((*E)->Words.size());
  if (!Out.empty())
    std::memcpy(Out.data(), (*E)->Words.data(), Out.size() * sizeof(double));
  return Out;
}

Expected<std::string> Checkpoint::getBytes(StringRef Key) const {
  Expected<const Entry *> E = get(Key, Kind::Bytes);
  if (!E)
    return E.takeError();
  return (*E)->Bytes;
}

Expected<uint64_t> Checkpoint::getU64(StringRef Key) const {
  Expected<std::vector<uint64_t>> V = getU64s(Key);
  if (!V)
    return V.takeError();
  if (V->size() != 1)
    return makeError("checkpoint entry '" + Key + "' has " + Twine(V->size()) +
                     " values, expected 1");
  return (*V)[0];
}

Expected<double> Checkpoint::getF64(StringRef Key) const {
  Expected<std::vector<double>> V = getF64s(Key);
  if (!V)
    return V.takeError();
  if (V->size() != 1)
    return makeError("checkpoint entry '" + Key + "' has " + Twine(V->size()) +
                     " values, expected 1");
  return (*V)[0];
}

std::vector<std::string> Checkpoint::getKeys() const {
  std::vector<std::string> Keys;
  for (const auto &KV : Entries)
    Keys.push_back(KV.first);
  return Keys;
}

std::vector<uint8_t> Checkpoint::serialize() const {
  ByteWriter W;
  W.putRaw(StringRef(CheckpointMagic, 8));
  W.putU32(CheckpointVersion);
  W.putU32(static_cast<uint32_t>(Entries.size()));
  for (const auto &KV : Entries) {
    const Entry &E = KV.second;
    W.putString(KV.first);
    W.putU8(static_cast<uint8_t>(E.TheKind));
    if (E.TheKind == Kind::Bytes) {
      W.putU64(E.Bytes.size());
      W.putRaw(E.Bytes);
      continue;
    }
    W.putU64(E.Words.size());
    for (uint64_t X : E.Words)
      W.putU64(X);
  }
  W.putU32(crc32(W.Bytes));
  return std::move(W.Bytes);
}

Expected<Checkpoint> Checkpoint::parse(ArrayRef<uint8_t> Bytes,
                                       StringRef Name) {
  auto Fail = [&](const Twine &Msg) { return makeError(Name + ": " + Msg); };
  if (Bytes.size() < 20 || std::memcmp(Bytes.data(), CheckpointMagic, 8) != 0)
    return Fail("not an mlgo checkpoint (bad magic)");
  ArrayRef<uint8_t> Body = Bytes.drop_back(4);
  uint32_t Stored = support::endian::read32le(Bytes.data() + Body.size());
  if (crc32(Body) != Stored)
    return Fail("checksum mismatch (file corrupt)");
  ByteReader R(Body);
  std::string Magic;
  uint32_t Version, NumEntries;
  R.getRaw(8, Magic);
  R.getU32(Version);
  R.getU32(NumEntries);
  if (Version != CheckpointVersion)
    return Fail("unsupported checkpoint version " + Twine(Version) +
                " (this mlgo reads version 1)");
  Checkpoint C;
  for (uint32_t I = 0; I < NumEntries; ++I) {
    std::string Key;
    uint8_t K;
    uint64_t Count;
    if (!R.getString(Key) || !R.getU8(K) || !R.getU64(Count))
      return Fail("truncated entry " + Twine(I));
    Entry E;
    if (K < 1 || K > 3)
      return Fail("entry '" + Key + "' has unknown kind " + Twine(unsigned(K)));
    E.TheKind = static_cast<Kind>(K);
    if (E.TheKind == Kind::Bytes) {
      if (!R.getRaw(Count, E.Bytes))
        return Fail("truncated entry '" + Key + "'");
    } else {
      if (Count > R.remaining() / 8)
        return Fail("truncated entry '" + Key + "'");
      E.Words.resize(Count);
      for (uint64_t &X : E.Words)
        R.getU64(X);
    }
    if (!C.Entries.emplace(Key, std::move(E)).second)
      return Fail("duplicate entry '" + Key + "'");
  }
  if (R.remaining())
    return Fail(Twine(R.remaining()) + " trailing bytes after the entries");
  return C;
}

Error Checkpoint::save(StringRef Path) const {
  return writeFileAtomically(Path, toStringRef(serialize()));
}

Expected<Checkpoint> Checkpoint::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  ArrayRef<uint8_t> Bytes(
      reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
      (*Buf)->getBufferSize());
  return parse(Bytes, Path);
}

void saveRng(Checkpoint &C, StringRef Prefix, const Rng &R) {
  RngState S = R.getState();
  uint64_t Spare;
  std::memcpy(&Spare, &S.Spare, 8);
  C.setU64s((Prefix + "rng").str(),
            {S.S[0], S.S[1], S.S[2], S.S[3], S.HasSpare ? 1u : 0u, Spare});
}

Error loadRng(const Checkpoint &C, StringRef Prefix, Rng &R) {
  std::string Key = (Prefix + "rng").str();
  Expected<std::vector<uint64_t>> W = C.getU64s(Key);
  if (!W)
    return W.takeError();
  if (W->size() != 6 || (*W)[4] > 1)
    return makeError("checkpoint entry '" + Key + "' is not a generator state");
  RngState S;
  for (int I = 0; I < 4; ++I)
    S.S[I] = (*W)[I];
  S.HasSpare = (*W)[4] == 1;
  std::memcpy(&S.Spare, &(*W)[5], 8);
  R.setState(S);
  return Error::success();
}

} // namespace learn
} // namespace mlgo
