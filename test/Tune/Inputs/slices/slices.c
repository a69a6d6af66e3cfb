// A module whose functions compile alone as they do together, but for one
// static function that every caller calls with the same constant: in the
// module, interprocedural constant propagation moves the constant from
// the calls into it; compiled without its callers, it cannot.
extern int ext(int);
extern int ext2(int, int);

__attribute__((noinline)) static int scale(int x, int k) {
  return ext2(x, k) + ext(k);
}
int a(int x) { return scale(x, 3) + 1; }
int b(int x) { return scale(x + 1, 3) * 2; }

static int sq(int x) { return x * x + 3 * x + 7; }
int c(int x) { return sq(x) + a(x); }
int d(int x) { return sq(x + 1) - ext(x); }

int e(int x) { return ext(x) + 5; }
