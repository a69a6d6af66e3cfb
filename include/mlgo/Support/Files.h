//===- mlgo/Support/Files.h - Reading whole files with located errors -*- C++ -*-===//
//
// Every file mlgo reads whole (recipes, compilation databases, extraction
// reports, corpus descriptions, model files, compile logs) fails the same
// two ways: the file cannot be read, or (for JSON) it does not parse. These
// two functions give those failures one wording, always led by the path, so
// that a user sees which file is wrong and why:
//
//   PATH: No such file or directory
//   PATH: invalid JSON: [LINE:COLUMN, byte=OFFSET]: <llvm::json's message>
//
// What the parsed JSON must contain stays with each reader.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_FILES_H
#define MLGO_SUPPORT_FILES_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace mlgo {

/// The whole file at \p Path; the error is "PATH: <the system's reason>".
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readWholeFile(const llvm::Twine &Path);

/// The file at \p Path parsed as one JSON value; errors are readWholeFile's
/// or "PATH: invalid JSON: <where and why>".
llvm::Expected<llvm::json::Value> readJSONFile(const llvm::Twine &Path);

} // namespace mlgo

#endif // MLGO_SUPPORT_FILES_H
