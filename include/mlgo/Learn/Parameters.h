//===- mlgo/Learn/Parameters.h - A model's weights as one vector -*- C++ -*-=//
//
// Black-box trainers (evolution strategies) see a model as a flat vector
// theta. The order is fixed: for each layer in order, its weights row by row
// (output o's In weights, o = 0..Out-1), then its Out biases. Preprocessing
// constants and the decision rule are not parameters.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_PARAMETERS_H
#define MLGO_LEARN_PARAMETERS_H

#include "mlgo/Model/Model.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace mlgo {
namespace learn {

/// theta of \p M (Model::getNumParameters() values), widened to double.
std::vector<double> getModelParameters(const Model &M);

/// Writes \p Theta into \p M's layers, rounding each value to the nearest
/// float. Fails if the size differs from M.getNumParameters() or a value is
/// not finite (then \p M is unchanged).
llvm::Error setModelParameters(Model &M, llvm::ArrayRef<double> Theta);

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_PARAMETERS_H
