// Beside a training log it writes, the plugin writes each decision's call
// site (<log>.sites: caller, callee and ordinal, as decisions files name
// sites), and `mlgo log dump` shows it under each observation, so a logged
// decision can be tied to its call site. The log itself keeps LLVM's
// format.
//
// RUN: rm -f %t.log %t.log.sites
// RUN: mlgo-clang -Oz -c %s -o %t.o -mllvm -mlgo-default-policy \
// RUN:   -mllvm -mlgo-training-log=%t.log
// RUN: FileCheck --check-prefix=SITES --match-full-lines %s < %t.log.sites
// RUN: mlgo log dump %t.log | FileCheck --check-prefix=DUMP %s
// A log without its side file dumps as before.
// RUN: cp %t.log %t.alone.log
// RUN: mlgo log dump %t.alone.log | FileCheck --check-prefix=ALONE %s

static int add(int a, int b) { return a + b; }
static int twice(int a) { return add(a, a); }
int f(int x) { return twice(x) + add(x, 1) + add(x, 2); }

// SITES: twice add 0
// SITES-NEXT: f twice 0
// SITES-NEXT: f add 0
// SITES-NEXT: f add 1
// SITES-EMPTY:
// DUMP: observation: 0
// DUMP-NEXT: site: twice -> add #0
// DUMP: observation: 3
// DUMP-NEXT: site: f -> add #1
// ALONE: observation: 0
// ALONE-NOT: site:
