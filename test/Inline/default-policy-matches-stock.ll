; In default-policy mode LLVM's own heuristic decides through mlgo's advisor,
; and the result is exactly what stock opt-19 produces without the plugin.
; -mlgo-use-llvm-advisor is LLVM's DefaultInlineAdvisor itself.
;
; RUN: opt -passes='default<Oz>' %S/Inputs/growth.ll -S -o %t.stock.ll
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   %S/Inputs/growth.ll -S -o %t.default.ll
; RUN: diff %t.stock.ll %t.default.ll
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-use-llvm-advisor \
; RUN:   %S/Inputs/growth.ll -S -o %t.llvm.ll
; RUN: diff %t.stock.ll %t.llvm.ll
; RUN: opt -passes='default<Oz>' %S/Inputs/mandatory.ll -S -o %t.stock2.ll
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' -mlgo-default-policy \
; RUN:   %S/Inputs/mandatory.ll -S -o %t.default2.ll
; RUN: diff %t.stock2.ll %t.default2.ll
