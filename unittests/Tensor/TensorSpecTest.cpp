//===- TensorSpecTest.cpp - TensorSpec JSON and values --------------------===//

#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/Analysis/TensorSpec.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <limits>

using namespace llvm;
using namespace mlgo;

namespace {

/// LLVM 19's own serialization of the same spec, for byte comparison.
template <typename T>
std::string llvmJSON(const std::string &Name, std::vector<int64_t> Shape,
                     int Port) {
  std::string S;
  raw_string_ostream OS(S);
  json::OStream JOS(OS);
  llvm::TensorSpec::createSpec<T>(Name, Shape, Port).toJSON(JOS);
  OS.flush();
  return S;
}

template <typename T> void checkRoundTrip(const char *TypeName) {
  mlgo::TensorSpec Spec = mlgo::TensorSpec::createSpec<T>("t", {2, 3}, 1);
  std::string JSON = Spec.toJSONString();
  EXPECT_EQ(JSON, std::string("{\"name\":\"t\",\"type\":\"") + TypeName +
                      "\",\"port\":1,\"shape\":[2,3]}");
  EXPECT_EQ(JSON, (llvmJSON<T>("t", {2, 3}, 1)));
  Expected<json::Value> V = json::parse(JSON);
  ASSERT_TRUE(!!V);
  Expected<mlgo::TensorSpec> Back = mlgo::TensorSpec::fromJSON(*V);
  ASSERT_TRUE(!!Back) << toString(Back.takeError());
  EXPECT_EQ(*Back, Spec);
  EXPECT_EQ(Back->getElementCount(), 6u);
  EXPECT_EQ(Back->getTotalTensorBufferSize(), 6 * sizeof(T));
  EXPECT_TRUE(Back->template isElementType<T>());
}

TEST(TensorSpecTest, JSONRoundTripAllTenTypes) {
  checkRoundTrip<float>("float");
  checkRoundTrip<double>("double");
  checkRoundTrip<int8_t>("int8_t");
  checkRoundTrip<uint8_t>("uint8_t");
  checkRoundTrip<int16_t>("int16_t");
  checkRoundTrip<uint16_t>("uint16_t");
  checkRoundTrip<int32_t>("int32_t");
  checkRoundTrip<uint32_t>("uint32_t");
  checkRoundTrip<int64_t>("int64_t");
  checkRoundTrip<uint64_t>("uint64_t");
}

std::string parseError(StringRef JSON) {
  Expected<json::Value> V = json::parse(JSON);
  EXPECT_TRUE(!!V);
  Expected<mlgo::TensorSpec> S = mlgo::TensorSpec::fromJSON(*V);
  if (S)
    return "no error";
  return toString(S.takeError());
}

TEST(TensorSpecTest, RejectsMissingKeys) {
  EXPECT_EQ(parseError(R"({"type":"int64_t","port":0,"shape":[1]})"),
            "invalid tensor spec {\"port\":0,\"shape\":[1],\"type\":"
            "\"int64_t\"}: missing string key 'name'");
  EXPECT_EQ(parseError(R"({"name":"a","port":0,"shape":[1]})"),
            "invalid tensor spec {\"name\":\"a\",\"port\":0,\"shape\":[1]}: "
            "missing string key 'type'");
  EXPECT_EQ(parseError(R"({"name":"a","type":"float","shape":[1]})"),
            "invalid tensor spec {\"name\":\"a\",\"shape\":[1],\"type\":"
            "\"float\"}: missing integer key 'port'");
  EXPECT_EQ(parseError(R"({"name":"a","type":"float","port":0})"),
            "invalid tensor spec {\"name\":\"a\",\"port\":0,\"type\":"
            "\"float\"}: missing array key 'shape'");
  EXPECT_EQ(parseError(R"([1,2])"),
            "invalid tensor spec [1,2]: expected a JSON object");
}

TEST(TensorSpecTest, RejectsUnknownTypeAndBadShape) {
  EXPECT_EQ(
      parseError(R"({"name":"a","type":"int128_t","port":0,"shape":[1]})"),
      "invalid tensor spec {\"name\":\"a\",\"port\":0,\"shape\":[1],"
      "\"type\":\"int128_t\"}: unknown type 'int128_t' (expected one of "
      "float, double, int8_t, uint8_t, int16_t, uint16_t, int32_t, "
      "uint32_t, int64_t, uint64_t)");
  EXPECT_EQ(parseError(R"({"name":"a","type":"float","port":0,"shape":[-1]})"),
            "invalid tensor spec {\"name\":\"a\",\"port\":0,\"shape\":[-1],"
            "\"type\":\"float\"}: 'shape' must hold non-negative integers");
}

TEST(TensorSpecTest, RejectsShapesBeyondTheSizeLimitAndWidePorts) {
  // 2^62 * 4 elements would wrap a 64-bit size to 0 (fuzz/regressions/
  // tensor-spec/); 2^30 int64s are 8 GiB.
  EXPECT_EQ(parseError(R"({"name":"a","type":"int8_t","port":0,)"
                       R"("shape":[4611686018427387904,4]})"),
            "invalid tensor spec {\"name\":\"a\",\"port\":0,\"shape\":"
            "[4611686018427387904,4],\"type\":\"int8_t\"}: 'shape' describes "
            "more than 4294967296 bytes");
  EXPECT_EQ(parseError(R"({"name":"a","type":"int64_t","port":0,)"
                       R"("shape":[1073741824]})"),
            "invalid tensor spec {\"name\":\"a\",\"port\":0,\"shape\":"
            "[1073741824],\"type\":\"int64_t\"}: 'shape' describes more "
            "than 4294967296 bytes");
  // Exactly at the limit, and a zero dimension beside a huge one: fine.
  EXPECT_EQ(parseError(R"({"name":"a","type":"int8_t","port":0,)"
                       R"("shape":[4294967296]})"),
            "no error");
  EXPECT_EQ(parseError(R"({"name":"a","type":"int8_t","port":0,)"
                       R"("shape":[0,9223372036854775807]})"),
            "no error");
  EXPECT_EQ(parseError(R"({"name":"a","type":"int8_t","port":4294967296,)"
                       R"("shape":[1]})"),
            "invalid tensor spec {\"name\":\"a\",\"port\":4294967296,"
            "\"shape\":[1],\"type\":\"int8_t\"}: 'port' must be a 32-bit "
            "integer");
}

TEST(TensorSpecTest, ScalarShapeHasOneElement) {
  auto S = mlgo::TensorSpec::createSpec<int64_t>("s", {});
  EXPECT_EQ(S.getElementCount(), 1u);
  EXPECT_EQ(S.toJSONString(), "{\"name\":\"s\",\"type\":\"int64_t\",\"port\":0,"
                              "\"shape\":[]}");
}

TEST(TensorSpecTest, ValueToString) {
  int64_t I[3] = {-1, 0, std::numeric_limits<int64_t>::max()};
  EXPECT_EQ(
      tensorValueToString(reinterpret_cast<char *>(I),
                          mlgo::TensorSpec::createSpec<int64_t>("i", {3})),
      "-1,0,9223372036854775807");
  uint8_t U[2] = {255, 7};
  EXPECT_EQ(
      tensorValueToString(reinterpret_cast<char *>(U),
                          mlgo::TensorSpec::createSpec<uint8_t>("u", {2})),
      "255,7");
  float F[4] = {0.1f, 1.5f, -std::numeric_limits<float>::infinity(), 1e30f};
  EXPECT_EQ(tensorValueToString(reinterpret_cast<char *>(F),
                                mlgo::TensorSpec::createSpec<float>("f", {4})),
            "0.1,1.5,-inf,1e+30");
  double D[2] = {0.1, 1.0 / 3};
  EXPECT_EQ(tensorValueToString(reinterpret_cast<char *>(D),
                                mlgo::TensorSpec::createSpec<double>("d", {2})),
            "0.1,0.3333333333333333");
}

} // namespace
