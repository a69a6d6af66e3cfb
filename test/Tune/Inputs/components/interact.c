// Two independent components by the call graph (fa1, fa2 and sq; fc, mid
// and leaf) whose sizes interact anyway: pad is aligned on purpose, so
// the padding before it depends on the size of every function before it.
// components-interaction.test: each component's best alone, combined,
// does not save the sum, and the joint search finds the optimum.
int filler(int t) { t = t * 7 + 0; t = t * 7 + 1; t = t * 7 + 2; return t; }
static int sq(int x) { return x * x + 3 * x + 7; }
int fa1(int x) { return sq(x) + 1; }
int fa2(int x) { return 2 * sq(x + 1); }
static int leaf(int x) { return x > 100 ? 100 : x < -100 ? -100 : x; }
static int mid(int x, int y) { return leaf(x * y) + y; }
int fc(int x, int y) { return mid(x, y) + 1; }
__attribute__((aligned(16))) int pad(int x) { return x * 5; }
