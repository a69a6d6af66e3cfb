//===- mlgo/Protocol/ServePolicy.h - Who answers the compiler ---*- C++ -*-===//
//
// A ServePolicy is the host-side decision maker of `mlgo serve`: for every
// observation the compiler streams over the interactive protocol it writes
// one advice tensor. The built-in policies are fixed rules, useful as
// baselines and for testing the plumbing end to end:
//
//   always       advice 1 everywhere        (inliner: inline every call site)
//   never        advice 0 everywhere        (inliner: inline nothing)
//   alternate    1, 0, 1, 0, ... counted over the whole run (all sessions)
//   first-valid  regalloc eviction: the first index whose "mask" element is
//                non-zero, else the last index (the candidate column)
//
// Policies are created from a spec string "NAME" or "NAME=ARG". Other areas
// add kinds with registerPolicyKind(); this is the extension point for
// "model=FILE" (a trained model evaluated in the host), which the model
// library registers when asked (registerModelPolicy() in
// mlgo/Model/ModelPolicy.h): this library knows nothing of models.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_PROTOCOL_POLICY_H
#define MLGO_PROTOCOL_POLICY_H

#include "mlgo/Log/TrainingLog.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>

namespace mlgo {

class ServePolicy {
public:
  virtual ~ServePolicy();

  /// Called each time a compiler connects, with the header it sent. A
  /// policy checks here that the stream has what it needs (the advice type,
  /// the features it reads) and fails with an error naming what is missing.
  virtual llvm::Error begin(const LogHeader &Header);

  /// Called for every {"context":...} record.
  virtual void switchContext(llvm::StringRef Name) {}

  /// Decides observation \p Obs (its features are \p Reader.getFeatureData)
  /// and writes Header.Advice->getTotalTensorBufferSize() bytes, in the
  /// advice spec's type, to \p AdviceOut.
  virtual llvm::Error decide(const LogHeader &Header, const LogRecord &Obs,
                             const LogReader &Reader, char *AdviceOut) = 0;
};

/// Creates a policy from "NAME" or "NAME=ARG".
llvm::Expected<std::unique_ptr<ServePolicy>> createPolicy(llvm::StringRef Spec);

/// Makes createPolicy accept "NAME" / "NAME=ARG" (the factory receives ARG,
/// empty when absent). Re-registering a name replaces its factory.
using PolicyFactory =
    std::function<llvm::Expected<std::unique_ptr<ServePolicy>>(
        llvm::StringRef Arg)>;
void registerPolicyKind(llvm::StringRef Name, PolicyFactory Factory);

/// Fills every element of a tensor laid out as \p Spec with \p Value,
/// converted to the spec's scalar type.
void fillTensor(const TensorSpec &Spec, int64_t Value, char *Out);

} // namespace mlgo

#endif // MLGO_PROTOCOL_POLICY_H
