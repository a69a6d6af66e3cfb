// The cycle-cost test's program (speed-workload-cost.test): main's hot loop
// calls `step` as Inputs/speed-inline.c's does (the speed tune inlines it,
// and the program executes fewer instructions), then walks a 64 MiB array
// as test/Speed/Inputs/stride.c does: two million loads 4160 bytes apart,
// wrapped at 2^N bytes (N the argument, 12 without one). With N = 26 every
// load misses each simulated cache, with 12 they hit; the walk executes the
// same instructions whatever N is.
#include <stdio.h>
#include <stdlib.h>

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
  int s = 0;
  for (int i = 0; i < 200000; ++i)
    s = step(s % 1000 + Bias, mix(i) & 7);
  unsigned long Mask = (1UL << (argc > 1 ? strtoul(argv[1], 0, 10) : 12)) - 1;
  const unsigned long Size = 64UL << 20, Step = 4160;
  unsigned char *A = calloc(Size, 1);
  if (!A)
    return 1;
  unsigned long Sum = 0, At = 0;
  for (long I = 0; I < 2000000; ++I) {
    Sum += A[At];
    At = (At + Step) & Mask;
  }
  printf("%d %lu\n", s, Sum & 1);
  free(A);
  return 0;
}
