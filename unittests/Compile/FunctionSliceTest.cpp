//===- unittests/Compile/FunctionSliceTest.cpp - Slices of a module -------===//

#include "mlgo/Compile/FunctionSlice.h"
#include "mlgo/Compile/Components.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

// f calls the static s, which uses the static counter; g stores to the
// counter and calls f; alias fa names f; table holds s's address.
const char *IR = R"(
@counter = internal global i32 0
@table = internal constant [1 x ptr] [ptr @s]
@fa = alias i32 (i32), ptr @f
define internal i32 @s(i32 %x) {
  %c = load i32, ptr @counter
  %r = add i32 %x, %c
  ret i32 %r
}
define i32 @f(i32 %x) {
  %r = call i32 @s(i32 %x)
  ret i32 %r
}
define linkonce_odr i32 @h(i32 %x) {
  ret i32 %x
}
define void @g() {
  store i32 1, ptr @counter
  %r = call i32 @f(i32 1)
  %q = call i32 @h(i32 1)
  %t = load ptr, ptr @table
  ret void
}
)";

std::unique_ptr<Module> parse(LLVMContext &Ctx) {
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(IR, Err, Ctx);
  EXPECT_TRUE(M) << Err.getMessage().str();
  return M;
}

SliceSpec spec(std::initializer_list<StringRef> Emit,
               std::initializer_list<StringRef> Body) {
  SliceSpec S;
  for (StringRef E : Emit)
    S.Emit.insert(E);
  for (StringRef B : Body)
    S.Body.insert(B);
  return S;
}

TEST(FunctionSliceTest, DroppedFunctionsBecomeDeclarations) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx);
  // g alone, f and h as bodies: s is dropped, and table's reference to it
  // is to a hidden declaration.
  sliceModule(*M, spec({"g"}, {"f", "h"}));
  EXPECT_FALSE(verifyModule(*M, &errs()));
  Function *S = M->getFunction("s");
  EXPECT_TRUE(S->isDeclaration());
  EXPECT_EQ(S->getLinkage(), GlobalValue::ExternalLinkage);
  EXPECT_EQ(S->getVisibility(), GlobalValue::HiddenVisibility);
  // Bodies stay as they are in the module.
  EXPECT_FALSE(M->getFunction("f")->isDeclaration());
  EXPECT_EQ(M->getFunction("h")->getLinkage(), GlobalValue::LinkOnceODRLinkage);
  // The dropped s loaded counter: g's slice must not see counter as
  // never loaded, so it is a hidden external.
  EXPECT_EQ(M->getNamedGlobal("counter")->getVisibility(),
            GlobalValue::HiddenVisibility);
  EXPECT_FALSE(M->getNamedGlobal("counter")->hasLocalLinkage());
}

TEST(FunctionSliceTest, LocalsThatLoseUsersOutliveThem) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx);
  // s alone: its caller f is dropped, so s would die unused; g's store to
  // counter is dropped, so counter would look never stored. Both become
  // hidden externals. fa's aliasee is dropped: fa becomes a declaration.
  sliceModule(*M, spec({"s"}, {}));
  EXPECT_FALSE(verifyModule(*M, &errs()));
  Function *S = M->getFunction("s");
  EXPECT_FALSE(S->isDeclaration());
  EXPECT_EQ(S->getLinkage(), GlobalValue::ExternalLinkage);
  EXPECT_EQ(S->getVisibility(), GlobalValue::HiddenVisibility);
  EXPECT_TRUE(S->isDSOLocal());
  GlobalVariable *C = M->getNamedGlobal("counter");
  EXPECT_EQ(C->getLinkage(), GlobalValue::ExternalLinkage);
  EXPECT_EQ(C->getVisibility(), GlobalValue::HiddenVisibility);
  EXPECT_EQ(M->getNamedAlias("fa"), nullptr);
  ASSERT_NE(M->getFunction("fa"), nullptr);
  EXPECT_TRUE(M->getFunction("fa")->isDeclaration());
}

TEST(FunctionSliceTest, LinkonceEmittedAloneIsKeptWeak) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx);
  sliceModule(*M, spec({"h"}, {}));
  EXPECT_FALSE(verifyModule(*M, &errs()));
  EXPECT_EQ(M->getFunction("h")->getLinkage(), GlobalValue::WeakODRLinkage);
}

TEST(FunctionSliceTest, AClosedSetKeepsItsLinkage) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx);
  // The whole component: nothing changes.
  sliceModule(*M, spec({"s", "f", "g", "h"}, {}));
  EXPECT_TRUE(M->getFunction("s")->hasLocalLinkage());
  EXPECT_TRUE(M->getNamedGlobal("counter")->hasLocalLinkage());
  EXPECT_EQ(M->getFunction("h")->getLinkage(), GlobalValue::LinkOnceODRLinkage);
  ASSERT_NE(M->getNamedAlias("fa"), nullptr);
}

TEST(FunctionSliceTest, PartitionFunctionsKeepsLoneFunctions) {
  std::vector<std::string> Fs = {"a", "b", "c", "d"};
  DecidedSite S;
  S.Site = {"a", "c", 0, true};
  EXPECT_EQ(partitionFunctions(Fs, {S}, {{"d", "b"}}),
            (std::vector<std::vector<size_t>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(partitionFunctions(Fs, {}, {}),
            (std::vector<std::vector<size_t>>{{0}, {1}, {2}, {3}}));
}

} // namespace
