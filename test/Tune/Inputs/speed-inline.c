// The speed tests' inlining program: main's hot loop calls `step`, whose
// fast path is one addition and whose slow path (taken once in about a
// thousand calls, so not cold) is too big for LLVM's inliner even at a hot
// call site (its cost-benefit analysis says "cost over benefit"), so stock
// -O2 -fprofile-use keeps the call on every iteration; `mix` is small and
// inlined. With an argument the loop runs ten times longer.
#include <stdio.h>

volatile int Sink;
int Bias; // 0; the compiler cannot see which path a call takes

#define SLOW1(i) Sink = x * (i) + y; Sink = Sink ^ (x >> ((i) & 7)); Sink += y * (i);
#define SLOW4(i) SLOW1(i) SLOW1(i + 1) SLOW1(i + 2) SLOW1(i + 3)
#define SLOW16(i) SLOW4(i) SLOW4(i + 4) SLOW4(i + 8) SLOW4(i + 12)
#define SLOW64(i) SLOW16(i) SLOW16(i + 16) SLOW16(i + 32) SLOW16(i + 48)

int step(int x, int y) {
  if (x != 999)
    return x + y;
  SLOW64(1) SLOW64(65) SLOW64(129)
  return Sink;
}

int mix(int x) { return (x * 31) ^ (x >> 3); }

int main(int argc, char **argv) {
  int n = argc > 1 ? 2000000 : 200000;
  int s = 0;
  for (int i = 0; i < n; ++i)
    s = step(s % 1000 + Bias, mix(i) & 7);
  printf("%d\n", s);
  return 0;
}
