//===- mlgo/Model/ModelCodeGen.h - Text model to C++ ------------*- C++ -*-===//
//
// "Release mode": turns a text model into a .h/.cpp pair that needs nothing
// but the C++17 standard library. The weights become constant arrays (hex
// float literals, so no decimal rounding is involved) and evaluation is one
// plain function that performs exactly the interpreter's operations in the
// interpreter's order (see PolicyRunner.cpp), so both agree to the bit.
//
// For a model identifier Id the header declares
//
//   namespace mlgo::embedded::Id {
//   struct Model {
//     static constexpr const char *Name;            // metadata.name
//     static constexpr std::size_t NumInputs;
//     static const char *const InputNames[NumInputs];  // model order
//     static const char *const InputSpecs[NumInputs];  // TensorSpec JSON
//     static constexpr const char *OutputSpec;      // TensorSpec JSON
//     static constexpr int DecisionRule;            // 0 threshold, 1 sample
//     static constexpr float DecisionThreshold, Temperature;
//     static float evaluate(const void *const *Inputs);  // the logit
//   };
//   }
//
// which EmbeddedRunner::create<mlgo::embedded::Id::Model>(...) binds to the
// compiler's features by name. The generated code is never committed: the
// CMake function mlgo_embed_model (cmake/MLGOModels.cmake) regenerates it
// from models/<name>/model.json at build time.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_MODEL_MODELCODEGEN_H
#define MLGO_MODEL_MODELCODEGEN_H

#include "mlgo/Model/Model.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlgo {

/// A C identifier for \p Name: every character outside [A-Za-z0-9_] becomes
/// '_', and a leading digit gets a '_' prefix ("inline-oz" -> "inline_oz").
std::string getEmbeddedModelIdentifier(llvm::StringRef Name);

struct GeneratedModelCode {
  std::string Header; ///< Contents of <Id>.h.
  std::string Source; ///< Contents of <Id>.cpp, which includes <Id>.h.
};

/// Generates the code of \p M under namespace mlgo::embedded::\p Id. The
/// source includes the header as "<HeaderInclude>" (default "<Id>.h").
GeneratedModelCode generateModelCode(const Model &M, llvm::StringRef Id,
                                     llvm::StringRef HeaderInclude = "");

/// Writes <Dir>/<Id>.h and <Dir>/<Id>.cpp (creating Dir), leaving files whose
/// contents would not change untouched so builds stay incremental.
llvm::Error writeModelCode(const Model &M, llvm::StringRef Dir,
                           llvm::StringRef Id,
                           llvm::StringRef HeaderInclude = "");

} // namespace mlgo

#endif // MLGO_MODEL_MODELCODEGEN_H
