//===- mlgo/Support/Error.h - Errors that are their message -----*- C++ -*-===//
//
// mlgo reports every failure as an llvm::Error whose message says it all:
// the file, module or peer concerned and what is wrong with it. Nothing
// dispatches on an error code, so the code is always
// inconvertibleErrorCode().
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_ERROR_H
#define MLGO_SUPPORT_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace mlgo {

/// An error carrying \p Message and no error code.
inline llvm::Error makeError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

} // namespace mlgo

#endif // MLGO_SUPPORT_ERROR_H
