/* A workload for mlgo bench: WORK rounds of a dependent multiply-add chain,
 * then a line of output. -DSAY=... prints another line, -DEXIT_STATUS=n
 * fails, -DHANG never ends. */
#include <stdio.h>
#include <unistd.h>

#ifndef WORK
#define WORK 20000000L
#endif
#ifndef SAY
#define SAY "done"
#endif

int main(void) {
#ifdef HANG
  for (;;)
    pause();
#endif
  volatile unsigned long X = 1;
  for (long I = 0; I < WORK; ++I)
    X = X * 6364136223846793005UL + 1442695040888963407UL;
#ifdef EXIT_STATUS
  fprintf(stderr, "failing on purpose\n");
  return EXIT_STATUS;
#endif
  puts(SAY);
  return 0;
}
