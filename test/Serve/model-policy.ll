; `mlgo serve --policy model=FILE` answers stock opt-19's interactive ML
; inliner with a text model. Stock opt driven by the model over the protocol
; and mlgo's plugin deciding with the same model (-mlgo-model) produce the
; same IR: the model sees the same features either way. (The shipped
; inline-oz model also reads mlgo's extra features, which stock LLVM does not
; send, so this uses a model over LLVM's own features.)
;
; RUN: mlgo serve --policy model=%S/Inputs/cost-threshold.json --log %t.log -- \
; RUN:   opt -passes='default<Oz>' -enable-ml-inliner=release \
; RUN:   -inliner-interactive-channel-base={channel} %s -S -o %t.stock.ll
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' %s -S -o %t.plugin.ll \
; RUN:   -mlgo-model=%S/Inputs/cost-threshold.json
; RUN: diff %t.stock.ll %t.plugin.ll
; RUN: FileCheck %s < %t.stock.ll
; RUN: mlgo log dump %t.log | FileCheck %s --check-prefix=LOG
;
; A model needing a feature the stream lacks is refused, naming it.
; RUN: not mlgo serve --policy model=%S/../Inline/Inputs/unknown-feature-model.json -- \
; RUN:   opt -passes='default<Oz>' -enable-ml-inliner=release \
; RUN:   -inliner-interactive-channel-base={channel} %s -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=MISSING

declare void @sink(i32)

define internal void @small(i32 %x) {
  call void @sink(i32 %x)
  ret void
}

define void @caller(i32 %x) {
  call void @small(i32 %x)
  call void @small(i32 %x)
  ret void
}

; CHECK-LABEL: define void @caller(
; CHECK-NOT:     call {{.*}}@small
; LOG: inlining_decision: 1
; MISSING: model 'never' needs input 'no_such_feature' (int64_t [1]), which the compiler does not offer
