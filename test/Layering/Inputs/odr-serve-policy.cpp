// The other half of scripts/check-odr.sh's planted ODR violation.
namespace mlgo {
class Policy {
public:
  virtual ~Policy();
  virtual int decide() = 0;
};
Policy::~Policy() = default;
} // namespace mlgo
struct Always : mlgo::Policy {
  int decide() override { return 1; }
};
int countFlips();
int main() {
  Always A;
  return countFlips() + A.decide();
}
