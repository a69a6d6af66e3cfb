//===- Dataset.cpp - Labelled examples for training -----------------------===//
//
// The in-memory table and its binary file (format in mlgo/Learn/Dataset.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Dataset.h"
#include "mlgo/Learn/Checkpoint.h"
#include "mlgo/Support/Bytes.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cassert>
#include <cmath>
#include <cstring>

using namespace llvm;

namespace mlgo {
namespace learn {

static constexpr char DatasetMagic[8] = {'M', 'L', 'G', 'O',
                                         'D', 'S', 'E', 'T'};
static constexpr uint32_t DatasetVersion = 1;

Dataset::Dataset(std::vector<std::string> FeatureNames)
    : FeatureNames(std::move(FeatureNames)) {}

int64_t Dataset::getFeatureIndex(StringRef Name) const {
  for (size_t I = 0; I < FeatureNames.size(); ++I)
    if (FeatureNames[I] == Name)
      return static_cast<int64_t>(I);
  return -1;
}

void Dataset::addRow(ArrayRef<float> Row, int Label, float Weight,
                     int64_t Group) {
  assert(Row.size() == getNumFeatures() && "row width differs from the "
                                           "number of features");
  assert((Label == 0 || Label == 1) && "labels are 0 or 1");
  assert(std::isfinite(Weight) && Weight >= 0 && "weights are finite, >= 0");
  Features.insert(Features.end(), Row.begin(), Row.end());
  Labels.push_back(static_cast<uint8_t>(Label));
  Weights.push_back(Weight);
  Groups.push_back(Group);
}

void Dataset::reserve(size_t N) {
  Features.reserve(N * getNumFeatures());
  Labels.reserve(N);
  Weights.reserve(N);
  Groups.reserve(N);
}

template <typename T>
static bool sameBits(const std::vector<T> &A, const std::vector<T> &B) {
  return A.size() == B.size() &&
         (A.empty() ||
          std::memcmp(A.data(), B.data(), A.size() * sizeof(T)) == 0);
}

bool Dataset::operator==(const Dataset &O) const {
  return FeatureNames == O.FeatureNames && sameBits(Features, O.Features) &&
         Labels == O.Labels && sameBits(Weights, O.Weights) &&
         Groups == O.Groups;
}

std::vector<uint8_t> Dataset::serialize() const {
  ByteWriter W;
  W.Bytes.reserve(32 + Features.size() * 4 + size() * 13);
  W.putRaw(StringRef(DatasetMagic, 8));
  W.putU32(DatasetVersion);
  W.putU32(static_cast<uint32_t>(getNumFeatures()));
  W.putU64(size());
  for (const std::string &N : FeatureNames)
    W.putString(N);
  for (float V : Features)
    W.putF32(V);
  for (uint8_t L : Labels)
    W.putU8(L);
  for (float V : Weights)
    W.putF32(V);
  for (int64_t G : Groups)
    W.putI64(G);
  W.putU32(crc32(W.Bytes));
  return std::move(W.Bytes);
}

Expected<Dataset> Dataset::parse(ArrayRef<uint8_t> Bytes, StringRef Name) {
  auto Fail = [&](const Twine &Msg) { return makeError(Name + ": " + Msg); };
  if (Bytes.size() < 8 || std::memcmp(Bytes.data(), DatasetMagic, 8) != 0)
    return Fail("not an mlgo dataset (bad magic)");
  ByteReader R(Bytes);
  std::string Magic;
  uint32_t Version, F;
  uint64_t N;
  R.getRaw(8, Magic);
  if (!R.getU32(Version) || !R.getU32(F) || !R.getU64(N))
    return Fail("truncated dataset header");
  if (Version != DatasetVersion)
    return Fail("unsupported dataset version " + Twine(Version) +
                " (this mlgo reads version 1)");
  std::vector<std::string> Names(F);
  for (std::string &S : Names)
    if (!R.getString(S))
      return Fail("truncated feature names");
  // Compare by division so a huge N cannot overflow the product.
  uint64_t PerRow = 4 * uint64_t(F) + 1 + 4 + 8;
  if (N > R.remaining() / PerRow || R.remaining() != N * PerRow + 4)
    return Fail("truncated dataset (expected " +
                Twine(R.getPos() + N * PerRow + 4) + " bytes, found " +
                Twine(Bytes.size()) + ")");
  uint32_t Stored = support::endian::read32le(Bytes.data() + Bytes.size() - 4);
  if (crc32(Bytes.drop_back(4)) != Stored)
    return Fail("checksum mismatch (file corrupt)");
  Dataset D(std::move(Names));
  D.Features.resize(N * F);
  D.Labels.resize(N);
  D.Weights.resize(N);
  D.Groups.resize(N);
  for (float &V : D.Features)
    R.getF32(V);
  for (uint64_t I = 0; I < N; ++I) {
    R.getU8(D.Labels[I]);
    if (D.Labels[I] > 1)
      return Fail("row " + Twine(I) + ": label " + Twine(D.Labels[I]) +
                  " is not 0 or 1");
  }
  for (uint64_t I = 0; I < N; ++I) {
    R.getF32(D.Weights[I]);
    if (!std::isfinite(D.Weights[I]) || D.Weights[I] < 0)
      return Fail("row " + Twine(I) + ": weight is negative or not finite");
  }
  for (int64_t &G : D.Groups)
    R.getI64(G);
  return D;
}

Error Dataset::save(StringRef Path) const {
  return writeFileAtomically(Path, toStringRef(serialize()));
}

Expected<Dataset> Dataset::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parse(ArrayRef<uint8_t>(
                   reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
                   (*Buf)->getBufferSize()),
               Path);
}

} // namespace learn
} // namespace mlgo
