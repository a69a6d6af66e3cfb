/* Input of test/RegAlloc and unittests/RegAlloc: functions whose register
   allocation spills, reloads, copies and rematerializes, so that every
   count of the static regalloc score is non-zero somewhere. Compiled with
     clang-19 -O2 -g -fdebug-compilation-dir=. -S -emit-llvm spills.c \
       -o spills.ll
   (-g: the debug instructions the score skips are in the MIR too). */

extern int mix(int);
extern void sink(int *, int);
extern double weigh(double);

/* More values live across calls in a loop than x86-64 has callee-saved
   registers: spills and reloads at block frequencies that are not whole
   numbers (the branch inside the loop). */
int pressure(const int *a, int n) {
  int s0 = 1, s1 = 2, s2 = 3, s3 = 4, s4 = 5, s5 = 6, s6 = 7, s7 = 8, s8 = 9;
  for (int i = 0; i < n; ++i) {
    int v = a[i];
    s0 += v * 3;
    s1 ^= v + s0;
    s2 += s1 >> 2;
    s3 -= v * s2;
    if (v & 1)
      s4 += mix(s3);
    else
      s5 ^= mix(s4 + 11);
    s6 += s5 * 7;
    s7 ^= s6 + v;
    s8 += mix(s7) * s0;
  }
  return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8;
}

/* A local array updated in place (instructions that load and store) in a
   nested loop, and a call that forces it to memory. */
void fill(int *out, int n, int k) {
  int t[8] = {0};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 8; ++j)
      t[j] += out[i] * (j + k);
    if (out[i] > 100)
      sink(t, 8);
  }
  out[0] = t[0] + t[7];
}

/* Floating-point constants live across calls: constant-pool loads the
   allocator may rematerialize rather than spill. */
double poly(const double *x, int n) {
  double acc = 0.0;
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    acc += weigh(v * 1.5 + 0.25) * 2.75 - v * 0.125;
  }
  return acc;
}

/* Inline assembly, which the score skips, even though the "memory"
   clobber makes it one that may load and store. */
int with_asm(int x) {
  int y;
  __asm__ volatile("leal 1(%1), %0" : "=r"(y) : "r"(x) : "memory");
  return y + mix(y);
}

int leaf(int x) { return x * 2 + 1; }
