; The advisor keeps each caller's reachable blocks and loop depths across
; inlinings from the inlined region alone, and recomputes them only when an
; inlining cut old paths or a site lies in code inlined since. Here: a
; noreturn callee and a nounwind callee through an invoke cut paths (2), a
; resuming callee through an invoke splits the landing pad, and the later
; sites need depths of changed code (4 recomputations). With
; -mlgo-inline-verify-tracking every reachable set and loop depth served,
; and the caller's properties after each inlining, are checked against
; ones computed from scratch: a difference would be a fatal error.
;
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' \
; RUN:   -mlgo-inline-verify-tracking -mlgo-inline-tracking-stats \
; RUN:   %S/Inputs/tracking.ll -S -o %t.ll 2>%t.err
; RUN: FileCheck %s --check-prefix=STATS < %t.err
; RUN: FileCheck %s < %t.ll

; STATS: mlgo: inline tracking: {{.*}}tracking.ll: 3 inlinings followed, 2 cut old paths, 4 loop depth recomputations

; CHECK-LABEL: define void @driver(
; CHECK-NOT: call void @die(
; CHECK-NOT: @quiet(
; CHECK-NOT: @throws(
; CHECK: call void @abort()
; CHECK: landingpad
