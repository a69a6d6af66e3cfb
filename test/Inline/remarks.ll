; -pass-remarks=mlgo-inline explains every decision the advisor makes.
;
; RUN: mlgo serve --policy never -- opt -load-pass-plugin=%plugin \
; RUN:   -passes='default<Oz>' -mlgo-interactive-channel-base={channel} \
; RUN:   %S/Inputs/mandatory.ll -o /dev/null -pass-remarks=mlgo-inline \
; RUN:   -pass-remarks-missed=mlgo-inline 2>&1 | FileCheck %s
; At -Oz LLVM's AlwaysInliner handles always-inline calls before the main
; inliner; the bare inliner wrapper shows the advisor's own mandatory path.
; RUN: mlgo serve --policy never -- opt -load-pass-plugin=%plugin \
; RUN:   -passes=inliner-wrapper-no-mandatory-first -mlgo-interactive-channel-base={channel} \
; RUN:   %S/Inputs/mandatory.ll -o /dev/null -pass-remarks=mlgo-inline 2>&1 \
; RUN:   | FileCheck %s --check-prefix=ALWAYS
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   %S/Inputs/mandatory.ll -o /dev/null -pass-remarks=mlgo-inline \
; RUN:   -pass-remarks-missed=mlgo-inline 2>&1 | FileCheck %s --check-prefix=DEFAULT

; CHECK-DAG: remark: <unknown>:0:0: not inlining 'recursive' into 'recursive': recursive call (mandatory)
; CHECK-DAG: remark: <unknown>:0:0: not inlining 'never' into 'caller': never-inline call site (mandatory)
; CHECK-DAG: remark: <unknown>:0:0: advised against inlining 'plain' into 'caller': the interactive host decided

; DEFAULT-DAG: remark: <unknown>:0:0: advised inlining 'plain' into 'caller': LLVM's heuristic decided (default-policy mode); heuristic: inline

; ALWAYS: remark: <unknown>:0:0: inlining 'always' into 'caller': always-inline call site (mandatory)
