//===- fuzz/site-cache.cpp - Fuzz the call-site cache file reader ---------===//
//
// Feeds the input, as the contents of a tuning work directory's sites.tsv,
// to SiteCache::read, what `mlgo tune` does when it resumes. It must either
// read the complete lines (a torn last line is ignored) or fail with an
// error naming the file and a line.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/CompileCache.h"

#include "LineCacheTarget.h"

using namespace mlgo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  return fuzzLineCache<SiteCache>(Data, Size, "sites.tsv");
}
