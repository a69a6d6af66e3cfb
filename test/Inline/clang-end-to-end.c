// The plugin inside clang-19: -fplugin (so -mllvm -mlgo-* parse) plus
// -fpass-plugin (so the -Oz pipeline uses the advisor), as mlgo-clang does.
// clang's decisions match opt's on the same file's pre-optimization
// bitcode, byte for byte in the training log, and in default-policy mode the
// object equals plain clang -Oz's.
//
// RUN: clang -Oz -c %s -o %t.plain.o
// RUN: mlgo-clang -Oz -c %s -o %t.mlgo.o -mllvm -mlgo-default-policy \
// RUN:   -mllvm -mlgo-training-log=%t.clang.log -Rpass=mlgo-inline 2>&1 | FileCheck %s
// RUN: cmp %t.plain.o %t.mlgo.o
// RUN: clang -Oz -Xclang -disable-llvm-passes -emit-llvm -c %s -o %t.bc
// RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
// RUN:   -mlgo-training-log=%t.opt.log %t.bc -o /dev/null
// RUN: cmp %t.clang.log %t.opt.log
// RUN: mlgo log stats %t.clang.log | FileCheck %s --check-prefix=STATS
//
// Interactive mode works through clang too.
// RUN: mlgo serve --policy never -- mlgo-clang -Oz -c %s -o %t.never.o \
// RUN:   -mllvm -mlgo-interactive-channel-base={channel} 2>&1 | FileCheck %s --check-prefix=SERVE

static int add(int a, int b) { return a + b; }
static int mul(int a, int b) {
  int r = 0;
  for (int i = 0; i < b; ++i)
    r = add(r, a);
  return r;
}
int f(int x) { return mul(x, 3) + add(x, 1); }
int g(int x) { return mul(x, x); }

// CHECK: remark: advised inlining 'add' into 'mul': LLVM's heuristic decided (default-policy mode); heuristic: inline [-Rpass=mlgo-inline]
// STATS: observations: 4
// SERVE: mlgo serve: 4 decisions, 1 context
