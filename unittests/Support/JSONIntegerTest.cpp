//===- unittests/Support/JSONIntegerTest.cpp - Integers read from JSON ----===//
//
// getAsInt64 accepts exactly the int64_t values, whether written as
// integers or as integral doubles, and refuses 2^63 written as a double,
// which llvm::json::Value::getAsInteger would convert with undefined
// behaviour.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/JSONInteger.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

std::optional<int64_t> parseInt(StringRef Text) {
  Expected<json::Value> V = json::parse(Text);
  EXPECT_TRUE(bool(V)) << Text.str();
  if (!V) {
    consumeError(V.takeError());
    return std::nullopt;
  }
  return getAsInt64(*V);
}

TEST(JSONIntegerTest, IntegersAndIntegralDoubles) {
  EXPECT_EQ(parseInt("0"), 0);
  EXPECT_EQ(parseInt("-7"), -7);
  EXPECT_EQ(parseInt("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parseInt("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(parseInt("3.0"), 3);
  EXPECT_EQ(parseInt("-9.223372036854775808e18"), INT64_MIN);
}

TEST(JSONIntegerTest, RefusesWhatDoesNotFit) {
  EXPECT_EQ(parseInt("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parseInt("9.223372036854775807e18"), std::nullopt);
  EXPECT_EQ(parseInt("9223372036854775807.92"), std::nullopt);
  EXPECT_EQ(parseInt("1e300"), std::nullopt);
  EXPECT_EQ(parseInt("2.5"), std::nullopt);
  EXPECT_EQ(parseInt("\"1\""), std::nullopt);
  EXPECT_EQ(parseInt("null"), std::nullopt);
}

TEST(JSONIntegerTest, ObjectKeys) {
  json::Object O{{"a", 4}, {"b", 9.223372036854775807e18}};
  EXPECT_EQ(getInt64(O, "a"), 4);
  EXPECT_EQ(getInt64(O, "b"), std::nullopt);
  EXPECT_EQ(getInt64(O, "c"), std::nullopt);
}

} // namespace
