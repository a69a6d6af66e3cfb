#include <stdio.h>
long run(const unsigned char *code, long a, long b);
int main(int argc, char **argv) {
  static const unsigned char code[] = {0, 2, 5, 1, 2, 5, 4, 3, 6};
  long total = 0;
  for (int i = 0; i < 200; ++i)
    total += run(code, i, 500 + (argc > 1 ? 250 : 0));
  printf("%ld\n", total);
  return 0;
}
