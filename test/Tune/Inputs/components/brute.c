// Three independent groups of inlining decisions, six call sites in all:
// few enough that every configuration can be compiled (64), and the
// components' search must find the best of them.
static int sq(int x) { return x * x + 3 * x + 7; }
int fa1(int x) { return sq(x) + 1; }
int fa2(int x) { return 2 * sq(x + 1); }

static int big(int x) {
  int t = x;
  for (int i = 0; i < x; ++i)
    t = t * 31 + (i ^ (t >> 3)) + (t % 7 == 0 ? 11 : 13);
  return t;
}
int fb(int x, int y) { return big(x) + big(y); }

static int leaf(int x) { return x > 100 ? 100 : x < -100 ? -100 : x; }
static int mid(int x, int y) { return leaf(x * y) + y; }
int fc(int x, int y) { return mid(x, y) + 1; }
