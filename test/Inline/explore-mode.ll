; Exploration samples each decision from the model's probability,
; sigmoid(logit / T), with a seeded generator: the same seed gives the same
; decisions (and byte-identical logs), and the log records both the
; heuristic's decision and the one taken. With a huge temperature p = 0.5.
;
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/growth.ll \
; RUN:   -mlgo-size-increase-threshold=10 -mlgo-explore-seed=1 \
; RUN:   -mlgo-explore-temperature=1e30 -mlgo-training-log=%t.1a.log -o %t.1a.bc \
; RUN:   -pass-remarks=mlgo-inline -pass-remarks-missed=mlgo-inline 2>%t.remarks
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/growth.ll \
; RUN:   -mlgo-size-increase-threshold=10 -mlgo-explore-seed=1 \
; RUN:   -mlgo-explore-temperature=1e30 -mlgo-training-log=%t.1b.log -o %t.1b.bc
; RUN: cmp %t.1a.log %t.1b.log
; RUN: cmp %t.1a.bc %t.1b.bc
; RUN: FileCheck %s < %t.remarks
; RUN: mlgo log dump %t.1a.log | FileCheck %s --check-prefix=LOG
;
; Options that cannot be combined are rejected.
; RUN: not opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/growth.ll \
; RUN:   -mlgo-explore-seed=1 -mlgo-default-policy -o %t.bad.bc 2>&1 \
; RUN:   | FileCheck %s --check-prefix=CONFLICT
; RUN: not ls %t.bad.bc

; CHECK: sampled from embedded model inline-oz (logit {{.*}}) (p(inline) 0.5)

; LOG: inlining_default: {{[01]}}
; LOG-NEXT: inlining_decision: {{[01]}}

; CONFLICT: LLVM ERROR: mlgo: -mlgo-explore-seed samples from a model's probability; it cannot be combined with interactive or default-policy mode
