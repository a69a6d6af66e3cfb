// A planted ODR violation for scripts/check-odr.sh's self-test: this file
// and odr-serve-policy.cpp each define mlgo::Policy, differently, as the
// compile worker and the serve host once did.
#include <memory>
#include <string>
#include <vector>
namespace mlgo {
struct Policy {
  std::shared_ptr<const std::string> ModelJSON;
  std::vector<unsigned> Flips;
};
} // namespace mlgo
int countFlips() {
  mlgo::Policy P;
  P.Flips.push_back(1);
  return int(P.Flips.size());
}
