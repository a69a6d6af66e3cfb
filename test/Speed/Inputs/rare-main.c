// For test/Speed/profile-out-of-date.test: Inputs/main.c's rounds of
// `first` and `second` (every seventh), and one call of Inputs/rare.c's
// `rare`.
#include <stdio.h>
int first(const int *v, int n);
int second(const int *v, int n);
int rare(int x);
int main(void) {
  int v[64];
  for (int i = 0; i < 64; ++i)
    v[i] = i * 3 + 1;
  long s = rare(2);
  for (int r = 0; r < 20000; ++r)
    s += first(v, 64) + (r % 7 == 0 ? second(v, 64) : 0);
  printf("%ld\n", s);
  return 0;
}
