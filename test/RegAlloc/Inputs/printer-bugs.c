/* Input of test/RegAlloc and unittests/RegAlloc: functions whose MIR, as
   llc-19 -stop-after=virtregrewriter prints it, LLVM 19's own MIR parser
   rejects (mlgo::regalloc::repairPrintedMIR). Compiled with
     clang-19 -O2 -g -fdebug-compilation-dir=. -S -emit-llvm printer-bugs.c \
       -o printer-bugs.ll */

#include <string.h>

void use(int *);
extern long (*hook)(void *, long);

/* Stack coloring gives x and y one slot, whose debug info then prints as
   "debug-info-variable: '!14!20'" (llvm-project issue #87817). */
void disjoint_arrays(void) {
  {
    int x[4];
    use(x);
  }
  {
    int y[4];
    use(y);
  }
}

struct big {
  long a[4];
};
struct small {
  long a[2];
};

/* Leaves a constant-pool entry printed as '<4 x i32> zeroinitializer',
   which the MIR parser's constant parser does not accept. */
void zero_around_call(struct big *b, struct small *s) {
  memset(b, 0, sizeof *b);
  hook(b, 0);
  memset(s, 0, sizeof *s);
}
