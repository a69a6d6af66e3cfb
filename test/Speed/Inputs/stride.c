/* Two million loads from a 64 MiB array, 4160 bytes apart, wrapped at 2^N
 * bytes (N the argument): with N = 26 every load touches another line of
 * the array (a miss in any cache smaller than it), with N = 12 the same 64
 * lines (hits). The instructions executed are the same: only the mask
 * differs. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  unsigned long Mask = (1UL << strtoul(argv[1], 0, 10)) - 1;
  const unsigned long Size = 64UL << 20, Step = 4160;
  unsigned char *A = calloc(Size, 1);
  if (!A)
    return 1;
  unsigned long Sum = 0, At = 0;
  for (long I = 0; I < 2000000; ++I) {
    Sum += A[At];
    At = (At + Step) & Mask;
  }
  printf("%lu\n", Sum & 1);
  free(A);
  return 0;
}
