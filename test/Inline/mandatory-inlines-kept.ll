; Mandatory decisions are the compiler's, whatever the policy says: an
; always-inline callee is inlined under a policy that never inlines, and a
; noinline callee or a recursive call is kept under a policy that always
; inlines. The policy only sees (and only decides) the plain call site.
;
; RUN: mlgo serve --policy never --log %t.never.log -- opt -load-pass-plugin=%plugin \
; RUN:   -passes='default<Oz>' -mlgo-interactive-channel-base={channel} \
; RUN:   %S/Inputs/mandatory.ll -S -o %t.never.ll 2>/dev/null
; RUN: FileCheck %s --check-prefix=NEVER < %t.never.ll
; RUN: mlgo log stats %t.never.log | FileCheck %s --check-prefix=ONE
;
; RUN: mlgo serve --policy always --log %t.always.log -- opt -load-pass-plugin=%plugin \
; RUN:   -passes='default<Oz>' -mlgo-interactive-channel-base={channel} \
; RUN:   %S/Inputs/mandatory.ll -S -o %t.always.ll 2>/dev/null
; RUN: FileCheck %s --check-prefix=ALWAYS < %t.always.ll
; RUN: mlgo log stats %t.always.log | FileCheck %s --check-prefix=ONE

; NEVER-LABEL: define void @caller(
; NEVER-NOT:     call {{.*}}@always
; NEVER:         call {{.*}}void @never(
; NEVER:         call {{.*}}void @plain(

; ALWAYS:      define {{.*}}i32 @recursive(
; ALWAYS:        call {{.*}}@recursive(
; ALWAYS-LABEL: define void @caller(
; ALWAYS-NOT:    call {{.*}}@always
; ALWAYS:        call {{.*}}void @never(
; ALWAYS-NOT:    call {{.*}}@plain

; Only @plain reached the policy.
; ONE: observations: 1
