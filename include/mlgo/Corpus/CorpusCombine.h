//===- mlgo/Corpus/CorpusCombine.h - Several corpora as one -----*- C++ -*-===//
//
// The work behind `mlgo corpus combine`: the corpora are merged
// (combineCorpora, CorpusDescription.h) and so are their extraction reports
// (combineExtractionReports, Extract.h), with module names prefixed the way
// combineCorpora renamed them, so that `mlgo corpus check` works on the
// combined corpus.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_CORPUSCOMBINE_H
#define MLGO_CORPUS_CORPUSCOMBINE_H

#include "mlgo/Corpus/CorpusDescription.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlgo {

struct CombinedCorpus {
  CorpusDescription Description;
  /// Whether the combined corpus has an extraction report: only when every
  /// input has one.
  bool HasExtractionReport = false;
};

/// Combines the corpora in \p Inputs into \p Output, description and
/// extraction reports. Fails as combineCorpora does, or if an input's
/// description or report cannot be read.
llvm::Expected<CombinedCorpus> combineCorpus(llvm::ArrayRef<std::string> Inputs,
                                             llvm::StringRef Output);

} // namespace mlgo

#endif // MLGO_CORPUS_CORPUSCOMBINE_H
