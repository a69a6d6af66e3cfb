//===- ModelRunners.cpp - Model-backed runners for the inliner ------------===//

#include "mlgo/Inline/MLGOInlineAdvisor.h"

#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace mlgo {

std::unique_ptr<ModelRunner> createModelRunner(std::vector<TensorSpec> Inputs,
                                               MLGOInlineAdvisorOptions &Options) {
  // TODO(models): interpreted and embedded runners.
  report_fatal_error("mlgo: model runners are not wired in yet", false);
}

} // namespace mlgo
