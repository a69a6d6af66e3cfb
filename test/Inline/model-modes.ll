; The model decides: embedded in the plugin by default, or interpreted from
; a file with -mlgo-model. The embedded model (models/inline-oz) and the same
; model interpreted from its text file take identical decisions.
;
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/mandatory.ll \
; RUN:   -mlgo-training-log=%t.embedded.log -S -o %t.embedded.ll \
; RUN:   -pass-remarks=mlgo-inline -pass-remarks-missed=mlgo-inline 2>&1 \
; RUN:   | FileCheck %s --check-prefix=EMBEDDED
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/mandatory.ll \
; RUN:   -mlgo-model=%mlgo_src/models/inline-oz/model.json \
; RUN:   -mlgo-training-log=%t.file.log -S -o %t.file.ll \
; RUN:   -pass-remarks=mlgo-inline 2>&1 | FileCheck %s --check-prefix=FILE
; RUN: cmp %t.embedded.log %t.file.log
; RUN: diff %t.embedded.ll %t.file.ll
;
; A model that never inlines leaves the policy's call site alone.
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/mandatory.ll \
; RUN:   -mlgo-model=%S/Inputs/never-model.json -S -o - \
; RUN:   -pass-remarks-missed=mlgo-inline 2>%t.never.remarks | FileCheck %s --check-prefix=NEVER
; RUN: FileCheck %s --check-prefix=NEVER-REMARK < %t.never.remarks

; EMBEDDED: remark: <unknown>:0:0: advised inlining 'plain' into 'caller': decided by embedded model inline-oz (logit {{[0-9.e+-]+}})
; FILE: remark: <unknown>:0:0: advised inlining 'plain' into 'caller': decided by model inline-oz ({{.*}}models/inline-oz/model.json) (logit {{[0-9.e+-]+}})

; NEVER-LABEL: define void @caller(
; NEVER:         call {{.*}}void @plain(
; NEVER-REMARK: remark: <unknown>:0:0: advised against inlining 'plain' into 'caller': decided by model never ({{.*}}never-model.json) (logit -1)
