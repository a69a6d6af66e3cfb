; -mlgo-flip=i,j,... inverts the policy's decisions with those indices (in
; the order the inliner asks) and applies the others as the policy decides:
; any single inversion a training run measured can be replayed with plain
; opt or clang. @leaf is small and each of its three calls is inlined by
; LLVM's heuristic (decisions 0, 1, 2, callers in the order below).
;
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   %s -S -o - -pass-remarks=mlgo-inline -pass-remarks-missed=mlgo-inline \
; RUN:   2>&1 | FileCheck %s --check-prefix=NONE
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   -mlgo-flip=0 %s -S -o - -pass-remarks=mlgo-inline \
; RUN:   -pass-remarks-missed=mlgo-inline 2>&1 | FileCheck %s --check-prefix=ONE
; Order and repetition do not matter.
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   -mlgo-flip=2,0,2 %s -S -o - -pass-remarks=mlgo-inline \
; RUN:   -pass-remarks-missed=mlgo-inline 2>&1 | FileCheck %s --check-prefix=TWO
; Indices past the module's last decision invert nothing.
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   -mlgo-flip=3 %s -S -o - 2>&1 | FileCheck %s --check-prefix=NONE-IR
; The embedded model decides too; its decisions can be inverted alike.
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-flip=1 %s \
; RUN:   -o /dev/null -pass-remarks-missed=mlgo-inline 2>&1 \
; RUN:   | FileCheck %s --check-prefix=MODEL
; LLVM's own advisor has no decisions of mlgo's to invert.
; RUN: not opt -load-pass-plugin=%plugin -passes='default<Oz>' \
; RUN:   -mlgo-use-llvm-advisor -mlgo-flip=0 %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=ERR

; NONE: remark: <unknown>:0:0: advised inlining 'leaf' into 'one': LLVM's heuristic decided (default-policy mode); heuristic: inline
; NONE: remark: <unknown>:0:0: advised inlining 'leaf' into 'two': LLVM's heuristic decided (default-policy mode); heuristic: inline
; NONE: remark: <unknown>:0:0: advised inlining 'leaf' into 'three': LLVM's heuristic decided (default-policy mode); heuristic: inline
; NONE-NOT: @leaf(

; NONE-IR-NOT: @leaf(

; ONE: remark: <unknown>:0:0: advised against inlining 'leaf' into 'one': LLVM's heuristic decided (default-policy mode); inverted on request (-mlgo-flip, or a trainer's flips); heuristic: inline
; ONE: remark: <unknown>:0:0: advised inlining 'leaf' into 'two': LLVM's heuristic decided (default-policy mode); heuristic: inline
; ONE: remark: <unknown>:0:0: advised inlining 'leaf' into 'three': LLVM's heuristic decided (default-policy mode); heuristic: inline
; ONE: define internal fastcc i32 @leaf(
; ONE: define i32 @one(
; ONE-NEXT: tail call fastcc i32 @leaf(
; ONE: define i32 @two(
; ONE-NOT: @leaf(

; TWO: remark: <unknown>:0:0: advised against inlining 'leaf' into 'one': {{.*}}; inverted on request
; TWO: remark: <unknown>:0:0: advised inlining 'leaf' into 'two': LLVM's heuristic decided (default-policy mode); heuristic: inline
; TWO: remark: <unknown>:0:0: advised against inlining 'leaf' into 'three': {{.*}}; inverted on request
; TWO: define i32 @one(
; TWO-NEXT: tail call fastcc i32 @leaf(
; TWO: define i32 @two(
; TWO-NEXT: mul
; TWO: define i32 @three(
; TWO-NEXT: tail call fastcc i32 @leaf(

; MODEL: remark: <unknown>:0:0: advised against inlining 'leaf' into 'two': decided by embedded model inline-oz (logit {{.*}}); inverted on request (-mlgo-flip, or a trainer's flips); heuristic: inline

; ERR: LLVM ERROR: mlgo: -mlgo-flip inverts decisions of mlgo's advisor; it cannot be combined with -mlgo-use-llvm-advisor

define internal i32 @leaf(i32 %x) {
  %a = mul i32 %x, %x
  %b = add i32 %a, 7
  %c = mul i32 %b, %x
  %d = xor i32 %c, %a
  ret i32 %d
}

define i32 @one(i32 %x) {
  %r = call i32 @leaf(i32 %x)
  ret i32 %r
}

define i32 @two(i32 %x) {
  %r = call i32 @leaf(i32 %x)
  %s = add i32 %r, 1
  ret i32 %s
}

define i32 @three(i32 %x) {
  %r = call i32 @leaf(i32 %x)
  %s = add i32 %r, 2
  ret i32 %s
}
