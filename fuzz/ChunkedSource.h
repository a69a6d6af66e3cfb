//===- fuzz/ChunkedSource.h - Bytes in fuzzer-chosen pieces -----*- C++ -*-===//
//
// A ByteSource over a buffer that hands out its bytes in pieces whose sizes
// the fuzzer chooses, as a pipe from a live compiler does: the readers must
// not care where reads split their input.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_FUZZ_CHUNKEDSOURCE_H
#define MLGO_FUZZ_CHUNKEDSOURCE_H

#include "mlgo/Log/ByteSource.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstring>

namespace mlgo {

/// Serves \p Data; read N returns min(N, next piece size) bytes, the piece
/// sizes cycling through \p Pieces (each 1..256; none means whole reads).
class ChunkedSource final : public ByteSource {
public:
  ChunkedSource(llvm::StringRef Data, llvm::StringRef Pieces)
      : Data(Data), Pieces(Pieces) {}

  llvm::Expected<size_t> read(char *Buf, size_t Size) override {
    size_t Piece = Size;
    if (!Pieces.empty())
      Piece = static_cast<unsigned char>(Pieces[Next++ % Pieces.size()]) + 1;
    size_t N = std::min({Size, Piece, Data.size()});
    std::memcpy(Buf, Data.data(), N);
    Data = Data.drop_front(N);
    return N;
  }

private:
  llvm::StringRef Data;
  llvm::StringRef Pieces;
  size_t Next = 0;
};

/// Splits a fuzz input into a few bytes of piece sizes and the stream: the
/// first byte says how many piece-size bytes follow (mod 8).
inline std::pair<llvm::StringRef, llvm::StringRef>
splitPieces(llvm::StringRef Input) {
  if (Input.empty())
    return {"", ""};
  size_t N = std::min<size_t>(static_cast<unsigned char>(Input[0]) % 8,
                              Input.size() - 1);
  return {Input.substr(1, N), Input.substr(1 + N)};
}

} // namespace mlgo

#endif // MLGO_FUZZ_CHUNKEDSOURCE_H
