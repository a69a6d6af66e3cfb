//===- mlgo/RegAllocModel/EvictionMLP.h - Eviction models as MLPs -*- C++ -*-=//
//
// The eviction trainer searches the parameters of a per-column model
// ("masked_argmax", Model.h) by evolution strategies. Until now those were
// the weights of one linear layer: a score per column, linear in LLVM's
// features. Where one linear rule cannot serve two kinds of hot loop at
// once (brotli's hashers against xz's match finder, docs/lab/2026-11-27.md,
// session 7), a hidden layer can; this file is what the trainer needs for
// that, as data, without a compiler:
//
// - the searched parameters of a model: with one layer, its weights (its
//   bias shifts every column alike and can never change a decision, so it
//   is left alone, as it always was); with more, every layer's weights,
//   then every hidden layer's bias (the last layer's bias, again, moves
//   every column alike);
// - a linear model widened into a two-layer MLP that takes exactly its
//   decisions, so training starts where the linear model stands - "a warm
//   start that agrees with LLVM where LLVM is right" stays one. With the
//   linear score s(x) = b + sum_i w_i x_i, the hidden layer holds
//     h0 = relu(s(x)),  h1 = relu(-s(x)),  h2.. = relu(r_k . x)  (Extra units)
//   and the output is h0 - h1 + 0 * h2 + ... = s(x). In IEEE arithmetic
//   this is exact, not approximate: row 1 sums the negated terms in the
//   same order, and negation commutes with round-to-nearest, so it computes
//   -s(x) to the bit; one of h0, h1 is 0 and the other |s(x)|; adding +-0
//   changes nothing. (For finite inputs: an infinite feature would make
//   0 * h2 a NaN. The eviction features reach the MLP finite: NaNs are
//   mapped by the pipelines and the log-features are bounded.) The extra
//   units' input weights are drawn uniformly from [-1/sqrt(in), 1/sqrt(in)]
//   by splitMix64 from a seed, their output weights are 0: the search
//   finds whether and how they should count.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOCMODEL_EVICTIONMLP_H
#define MLGO_REGALLOCMODEL_EVICTIONMLP_H

#include "mlgo/Model/Model.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mlgo::regalloc {

/// The parameters of \p M the eviction trainer searches, in a fixed order
/// (above). \p M is a per-column model.
std::vector<float> getSearchedParameters(const Model &M);

/// \p M with its searched parameters set to \p P (as many as
/// getSearchedParameters(M) gives, in that order).
Model withSearchedParameters(const Model &M, llvm::ArrayRef<float> P);

/// \p Linear, a per-column model with one linear layer, as a two-layer MLP
/// with 2 + \p Extra ReLU units that takes the same decisions (above).
/// Errors name \p Linear's metadata name and what it is instead.
llvm::Expected<Model> widenToMLP(const Model &Linear, unsigned Extra,
                                 uint64_t Seed);

} // namespace mlgo::regalloc

#endif // MLGO_REGALLOCMODEL_EVICTIONMLP_H
