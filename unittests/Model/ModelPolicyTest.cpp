//===- unittests/Model/ModelPolicyTest.cpp - model=FILE as a serve policy -===//
//
// The protocol library's registry knows the rule policies only; the model
// library adds "model=FILE" when registerModelPolicy() is called, as
// `mlgo serve` does. (Decisions of a served model, end to end with opt-19,
// are test/Serve/model-policy.ll.)
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/ModelPolicy.h"

#include "mlgo/Protocol/ServePolicy.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

template <typename T> std::string errorMessage(Expected<T> &&V) {
  if (V)
    return "<success>";
  return toString(V.takeError());
}

TEST(ModelPolicyTest, ModelIsAPolicyOnlyOnceRegistered) {
  EXPECT_EQ(errorMessage(createPolicy("model=/nonexistent/x.json")),
            "unknown policy 'model=/nonexistent/x.json' (known: alternate, "
            "always, first-valid, never)");
  registerModelPolicy();
  registerModelPolicy(); // Idempotent.
  EXPECT_EQ(errorMessage(createPolicy("sometimes")),
            "unknown policy 'sometimes' (known: alternate, always, "
            "first-valid, model, never)");
  EXPECT_EQ(errorMessage(createPolicy("model=/nonexistent/x.json")),
            "cannot read model '/nonexistent/x.json': No such file or "
            "directory");
  EXPECT_EQ(errorMessage(createPolicy("model")),
            "policy 'model' needs a file: model=FILE");
  // The rule policies are still there.
  EXPECT_EQ(errorMessage(createPolicy("always")), "<success>");
}

} // namespace
