; A model can name the inline threshold of the heuristic whose decision it
; reads as "inlining_default" (the model format's "heuristic" key): the
; plugin then takes that decision as clang's -mllvm -inline-threshold would,
; instead of at -Oz's own threshold of 5. The test model decides exactly as
; the heuristic does (logit = inlining_default - 0.5). @medium is too large
; for -Oz's threshold and small enough for 1000.
;
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' \
; RUN:   -mlgo-model=%S/Inputs/heuristic-t1000-model.json %s -S -o %t.model.ll \
; RUN:   -pass-remarks=mlgo-inline 2>&1 | FileCheck %s --check-prefix=T1000
; The same IR as stock opt at that threshold, byte for byte.
; RUN: opt -passes='default<Oz>' -inline-threshold=1000 %s -S -o %t.stock.ll
; RUN: diff %t.model.ll %t.stock.ll
; RUN: FileCheck %s --check-prefix=INLINED < %t.model.ll
; Without the key, the same model follows -Oz's heuristic and refuses.
; RUN: sed '/"heuristic"/d' %S/Inputs/heuristic-t1000-model.json > %t.oz.json
; RUN: opt -load-pass-plugin=%plugin -passes='default<Oz>' \
; RUN:   -mlgo-model=%t.oz.json %s -S -o - -pass-remarks-missed=mlgo-inline \
; RUN:   2>&1 | FileCheck %s --check-prefix=OZ
; The key is shown, diffed and checked.
; RUN: mlgo model show %S/Inputs/heuristic-t1000-model.json \
; RUN:   | FileCheck %s --check-prefix=SHOW
; RUN: not mlgo model diff %t.oz.json %S/Inputs/heuristic-t1000-model.json \
; RUN:   | FileCheck %s --check-prefix=DIFF
; RUN: sed 's/  "inputs"/  "heuristic": {"inline_threshold": 8},\n  "inputs"/' \
; RUN:   %S/Inputs/never-model.json > %t.never.json
; RUN: not mlgo model check %t.never.json 2>&1 \
; RUN:   | FileCheck %s --check-prefix=NODEFAULT -DFILE=%t.never.json
; RUN: sed 's/"inline_threshold": 1000/"inline_threshold": 10.5/' \
; RUN:   %S/Inputs/heuristic-t1000-model.json > %t.frac.json
; RUN: not mlgo model check %t.frac.json 2>&1 \
; RUN:   | FileCheck %s --check-prefix=FRAC -DFILE=%t.frac.json

; T1000: remark: <unknown>:0:0: advised inlining 'medium' into 'one': decided by model heuristic-t1000 ({{.*}}heuristic-t1000-model.json) (logit 0.5); heuristic: inline
; T1000: remark: <unknown>:0:0: advised inlining 'medium' into 'two': decided by model heuristic-t1000 ({{.*}}heuristic-t1000-model.json) (logit 0.5); heuristic: inline

; INLINED-LABEL: define i32 @one(
; INLINED-NOT: call
; INLINED: ret i32
; INLINED-LABEL: define i32 @two(
; INLINED-NOT: call
; INLINED: ret i32

; OZ: remark: <unknown>:0:0: advised against inlining 'medium' into 'one': decided by model heuristic-t1000 ({{.*}}) (logit -0.5); heuristic: no inline
; OZ: define i32 @one(
; OZ-NEXT: tail call i32 @medium(

; SHOW: heuristic: inline threshold 1000 (inlining_default is LLVM's decision at that threshold)

; DIFF: ~ heuristic.inline_threshold: (the level's own) -> 1000

; NODEFAULT: mlgo: error: [[FILE]]: heuristic.inline_threshold: sets the heuristic behind the input 'inlining_default', which the model does not read
; FRAC: mlgo: error: [[FILE]]: heuristic.inline_threshold: expected a 32-bit integer

define i32 @medium(i32 %x, i32 %y) {
  %a = mul i32 %x, %y
  %b = add i32 %a, %x
  %c = xor i32 %b, %y
  %d = mul i32 %c, %a
  %e = sub i32 %d, %b
  %f = udiv i32 %e, %x
  %g = add i32 %f, %c
  %h = mul i32 %g, %g
  %i = xor i32 %h, %e
  %j = udiv i32 %i, %y
  %k = add i32 %j, %h
  %l = mul i32 %k, %i
  %m = sub i32 %l, %j
  ret i32 %m
}

define i32 @one(i32 %x, i32 %y) {
  %r = call i32 @medium(i32 %x, i32 %y)
  ret i32 %r
}

define i32 @two(i32 %x, i32 %y) {
  %r = call i32 @medium(i32 %y, i32 %x)
  ret i32 %r
}
