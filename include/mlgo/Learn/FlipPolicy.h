//===- mlgo/Learn/FlipPolicy.h - "Heuristic unless" as one MLP --*- C++ -*-===//
//
// The counterfactual trainer (mlgo/Train/Trainer.h) learns a scorer g(x):
// how likely inverting LLVM's own decision d at a call site shrinks .text.
// The policy it ships follows the heuristic except where the scorer is sure:
//
//     decision = d XOR (g(x) > tau)
//
// so tau = +inf is exactly the heuristic, and lowering tau inverts more
// decisions. The model format has one logit and "logit > 0" (no XOR), so
// buildFlipPolicy() writes the product L = (1 - 2d) * (g(x) - tau) as extra
// ReLU units on top of g's own layers, with d read raw from the model input
// named "inlining_default" (values 0 or 1):
//
//   every hidden layer of g gets two carry units, c0 = d and c1 = 1 - d
//   (layer 0: relu(d) and relu(1 - d); later layers: relu of the carry);
//   g's output layer becomes four ReLU units, with h = g(x) - tau,
//     r0 = relu( h - M c0)   r1 = relu(-h - M c0)
//     r2 = relu( h - M c1)   r3 = relu(-h - M c1)
//   and a linear output L = r0 - r1 - r2 + r3 with threshold 0.
//
// For d = 0 the c0 terms add -M * 0 = -0.0, which leaves h's float sum
// unchanged, and the c1 terms push r2 and r3 to zero as long as |h| < M;
// so L = r0 - r1 = h. For d = 1 symmetrically L = r3 - r2 = -h. Hence
// L > 0 exactly when d XOR (h > 0) is 1, and h is the same float sum in both
// branches. M = 2^24; tau = NeverFlip = 2^22 inverts nothing (h is then about
// -2^22, within M), for any scorer whose |g| stays below 2^21 - trained
// logits are in the tens.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_FLIPPOLICY_H
#define MLGO_LEARN_FLIPPOLICY_H

#include "mlgo/Model/InlineFeatureNames.h"
#include "mlgo/Model/Model.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace mlgo {
namespace learn {

/// The tau that makes buildFlipPolicy() reproduce the heuristic.
constexpr float NeverFlip = 4194304.0f; // 2^22

/// Which of the heuristic's decisions a flip policy may invert.
enum class FlipScope {
  Both,
  /// Only d = 1 ("inline" becomes "do not inline"); d = 0 stays: r0 and r1
  /// ignore g and see h = 0, so L = 0 there and the decision is 0.
  InlineOnly,
  /// Only d = 0 ("do not inline" becomes "inline"); d = 1 stays: r2 and r3
  /// ignore g and see h = -1, so L = 1 there and the decision is 1.
  NoInlineOnly,
};

/// Builds the model deciding d XOR (g(x) > Tau) from scorer \p G, which must
/// have at least one hidden layer, a linear output layer, and read
/// \p DefaultFeature raw (a one-element input with one empty pipeline).
llvm::Expected<Model>
buildFlipPolicy(const Model &G, float Tau,
                llvm::StringRef DefaultFeature = InlineDefaultFeatureName,
                FlipScope Scope = FlipScope::Both);

/// The same construction with one tau per branch: where the heuristic
/// refuses (d = 0) the policy inlines if g(x) > \p TauNoInline, and where it
/// inlines (d = 1) the policy refuses if g(x) > \p TauInline. Each branch's
/// h is g(x) minus its own tau, so the exactness argument above holds per
/// branch; NeverFlip keeps a branch the heuristic's.
llvm::Expected<Model> buildFlipPolicyPerBranch(
    const Model &G, float TauNoInline, float TauInline,
    llvm::StringRef DefaultFeature = InlineDefaultFeatureName);

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_FLIPPOLICY_H
