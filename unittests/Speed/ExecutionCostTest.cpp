//===- unittests/Speed/ExecutionCostTest.cpp ------------------------------===//
//
// BlockCoster on hand-written x86-64 code: instruction counts, the cycles
// of a dependency chain against independent instructions, calls and returns
// outside the simulation, the cache, and the errors.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/ExecutionCost.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo::speed;

namespace {

/// The error message of \p E, or "<success>".
template <typename T> std::string errorOf(Expected<T> E) {
  if (E)
    return "<success>";
  return toString(E.takeError());
}

std::unique_ptr<BlockCoster> coster() {
  Expected<std::unique_ptr<BlockCoster>> C =
      BlockCoster::create("x86_64-pc-linux-gnu", "");
  if (!C) {
    ADD_FAILURE() << toString(C.takeError());
    return nullptr;
  }
  return std::move(*C);
}

/// The cost of \p Bytes, failing the test on an error.
BlockWork costOf(BlockCoster &C, ArrayRef<uint8_t> Bytes, uint64_t At = 0) {
  Expected<BlockWork> W = C.cost(Bytes, At);
  if (!W) {
    ADD_FAILURE() << toString(W.takeError());
    return {};
  }
  return *W;
}

TEST(BlockCosterTest, CountsInstructions) {
  std::unique_ptr<BlockCoster> C = coster();
  ASSERT_TRUE(C);
  EXPECT_EQ(C->cpu(), "x86-64");
  // add %ebx,%eax; add %ecx,%eax; add %edx,%eax
  const uint8_t Chain[] = {0x01, 0xd8, 0x01, 0xc8, 0x01, 0xd0};
  BlockWork W = costOf(*C, Chain);
  EXPECT_EQ(W.Instructions, 3u);
  // Three dependent one-cycle adds: three cycles per iteration, less what
  // MCA overlaps at the first iteration's start.
  EXPECT_NEAR(W.Cycles, 3.0, 0.05);
}

TEST(BlockCosterTest, IndependentInstructionsOverlap) {
  std::unique_ptr<BlockCoster> C = coster();
  ASSERT_TRUE(C);
  // add %ebx,%eax; add %edx,%ecx; add %edi,%esi: no dependences, so the
  // block runs faster than the chain of the same length.
  const uint8_t Independent[] = {0x01, 0xd8, 0x01, 0xd1, 0x01, 0xfe};
  const uint8_t Chain[] = {0x01, 0xd8, 0x01, 0xc8, 0x01, 0xd0};
  BlockWork I = costOf(*C, Independent);
  BlockWork D = costOf(*C, Chain);
  EXPECT_EQ(I.Instructions, 3u);
  EXPECT_LT(I.Cycles, D.Cycles);
}

TEST(BlockCosterTest, CallsAndReturnsCostOneCycle) {
  std::unique_ptr<BlockCoster> C = coster();
  ASSERT_TRUE(C);
  // call (rel32 0); ret
  const uint8_t CallRet[] = {0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3};
  BlockWork W = costOf(*C, CallRet, 0x1000);
  EXPECT_EQ(W.Instructions, 2u);
  EXPECT_EQ(W.Cycles, 2.0);
}

TEST(BlockCosterTest, EmptyBlockCostsNothing) {
  std::unique_ptr<BlockCoster> C = coster();
  ASSERT_TRUE(C);
  BlockWork W = costOf(*C, {});
  EXPECT_EQ(W.Instructions, 0u);
  EXPECT_EQ(W.Cycles, 0.0);
}

TEST(BlockCosterTest, SameBytesSameCost) {
  std::unique_ptr<BlockCoster> C = coster();
  ASSERT_TRUE(C);
  const uint8_t Chain[] = {0x01, 0xd8, 0x01, 0xc8, 0x01, 0xd0};
  BlockWork A = costOf(*C, Chain);
  BlockWork B = costOf(*C, Chain, 0x4000);
  EXPECT_EQ(A.Cycles, B.Cycles);
}

TEST(BlockCosterTest, UndecodableBytesAreAnError) {
  std::unique_ptr<BlockCoster> C = coster();
  ASSERT_TRUE(C);
  // add %ebx,%eax; then 0x0f 0xff, no instruction.
  const uint8_t Bad[] = {0x01, 0xd8, 0x0f, 0xff};
  EXPECT_EQ(errorOf(C->cost(Bad, 0x10)),
            "cannot decode the instruction at 0x12");
}

TEST(BlockCosterTest, UnknownCPUIsAnError) {
  EXPECT_EQ(errorOf(BlockCoster::create("x86_64-pc-linux-gnu", "pentium-9000")),
            "'pentium-9000' is not a CPU of 'x86_64-pc-linux-gnu'");
}

TEST(ExecutionCostTest, NotAnObjectIsAnError) {
  std::unique_ptr<MemoryBuffer> B =
      MemoryBuffer::getMemBuffer("not an object", "junk.o");
  EXPECT_EQ(errorOf(measureExecutionCost(B->getMemBufferRef())),
            "junk.o: The file was not recognized as a valid object file");
}

} // namespace
