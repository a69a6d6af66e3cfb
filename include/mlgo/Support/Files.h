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
// JSON from outside is parsed with parseJSON, which refuses nesting deeper
// than MaxJSONDepth before llvm::json::parse can overflow the stack on it.
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

/// How deeply JSON read by mlgo may nest (mlgo's formats nest a few levels).
inline constexpr size_t MaxJSONDepth = 1000;

/// llvm::json::parse for text from outside: llvm::json::parse recurses once
/// per nesting level, so a file of a million '[' would overflow the stack;
/// text nested deeper than MaxJSONDepth is an error
/// "[LINE:COLUMN, byte=OFFSET]: nested deeper than 1000 levels" instead.
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef Text);

/// The file at \p Path parsed as one JSON value (parseJSON); errors are
/// readWholeFile's or "PATH: invalid JSON: <where and why>".
llvm::Expected<llvm::json::Value> readJSONFile(const llvm::Twine &Path);

} // namespace mlgo

#endif // MLGO_SUPPORT_FILES_H
