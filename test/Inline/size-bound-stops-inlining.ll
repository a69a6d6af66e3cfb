; Once the module's IR has grown past -mlgo-size-increase-threshold times its
; initial size, ML-driven inlining stops for the module: the policy says
; "always" but later call sites are left alone, with a remark saying why.
; With a loose bound, all four calls are inlined (LLVM's default bound, 2.0,
; would stop after three).
;
; RUN: mlgo serve --policy always -- opt -load-pass-plugin=%plugin \
; RUN:   -passes='default<Oz>' -mlgo-interactive-channel-base={channel} \
; RUN:   -mlgo-size-increase-threshold=10 %S/Inputs/growth.ll -S -o %t.free.ll 2>/dev/null
; RUN: FileCheck %s --check-prefix=FREE < %t.free.ll
; RUN: mlgo serve --policy always --log %t.log -- opt -load-pass-plugin=%plugin \
; RUN:   -passes='default<Oz>' -mlgo-interactive-channel-base={channel} \
; RUN:   -mlgo-size-increase-threshold=1.1 \
; RUN:   %S/Inputs/growth.ll -S -o %t.bound.ll -pass-remarks-missed=mlgo-inline 2>%t.remarks
; RUN: FileCheck %s --check-prefix=BOUND < %t.bound.ll
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: mlgo log stats %t.log | FileCheck %s --check-prefix=STATS

; FREE-NOT: call void @big(

; The first inlining pushes the module past 1.1x; the other three stay calls.
; BOUND-COUNT-3: call void @big(
; REMARK-COUNT-3: not inlining 'big' into '{{c[1-4]}}': module size bound reached; ML inlining stopped for this module
; STATS: observations: 1
