#include <stdio.h>
int first(const int *v, int n);
int second(const int *v, int n);
int cold(const int *v, int n);
// Rounds call `first`; every seventh round (every round with an argument)
// also calls `second`; `cold` runs with six arguments only.
int main(int argc, char **argv) {
  int v[64];
  for (int i = 0; i < 64; ++i)
    v[i] = i * 3 + 1;
  long s = 0;
  for (int r = 0; r < 20000; ++r)
    s += first(v, 64) + (argc > 1 || r % 7 == 0 ? second(v, 64) : 0);
  if (argc > 5)
    s += cold(v, 64);
  printf("%ld\n", s);
  return 0;
}
