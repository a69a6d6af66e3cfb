//===- unittests/Support/CodeOnceTest.cpp ---------------------------------===//
//
// The linker's rule for grouped sections (mlgo/Support/CodeOnce.h), over
// name hashes as the trainers keep them.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/CodeOnce.h"

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

using Object = std::pair<uint64_t, const std::vector<GroupedSection> *>;

TEST(CodeOnceTest, EachGroupedSectionOnceAtTheFirstCopysSize) {
  // Three objects' code, two of them with a copy of section 7 (of
  // different sizes, as two compiles of one inline function can be).
  std::vector<GroupedSection> A = {{7, 30}, {9, 20}}, B = {{7, 34}}, C;
  std::vector<Object> Objects = {{100, &A}, {90, &B}, {5, &C}};
  // 100 + 90 - 34 (B's copy of 7 is not linked) + 5.
  EXPECT_EQ(getCodeOnce<uint64_t>(Objects), 161u);
  // B first: its copy (34) is the one kept, A's (30) is not linked.
  std::vector<Object> BFirst = {{90, &B}, {100, &A}};
  EXPECT_EQ(getCodeOnce<uint64_t>(BFirst), 160u);
  EXPECT_EQ(getCodeOnce<uint64_t>(std::vector<Object>()), 0u);
}

} // namespace
