// Runs test/Serve/Inputs/pressure.c's `hot` (evictions in a loop) 2000
// iterations, or 20000 with an argument, and `small` once.
#include <stdio.h>
long hot(long *p, int n);
int small(int x);
static volatile long Sink;
void use(long x) { Sink += x; }
int main(int argc, char **argv) {
  long p[16];
  for (int i = 0; i < 16; ++i)
    p[i] = i * 7 + argc;
  long s = hot(p, argc > 1 ? 20000 : 2000) + small(argc);
  printf("%ld\n", s);
  return 0;
}
