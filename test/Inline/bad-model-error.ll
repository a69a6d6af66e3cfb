; A bad model never silently falls back to another policy: the compilation
; stops with a message naming the file and the problem, and no output file
; is written - in opt and in clang.
;
; RUN: not opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/features.ll \
; RUN:   -mlgo-model=%t.missing.json -o %t.1.bc 2>&1 | FileCheck %s --check-prefix=MISSING
; RUN: not ls %t.1.bc
; RUN: not opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/features.ll \
; RUN:   -mlgo-model=%S/Inputs/malformed-model.json -o %t.2.bc 2>&1 \
; RUN:   | FileCheck %s --check-prefix=MALFORMED
; RUN: not ls %t.2.bc
; RUN: not opt -load-pass-plugin=%plugin -passes='default<Oz>' %S/Inputs/features.ll \
; RUN:   -mlgo-model=%S/Inputs/unknown-feature-model.json -o %t.3.bc 2>&1 \
; RUN:   | FileCheck %s --check-prefix=UNKNOWN
; RUN: not ls %t.3.bc
; RUN: not mlgo-clang -Oz -c -x ir %S/Inputs/features.ll -o %t.4.o \
; RUN:   -mllvm -mlgo-model=%S/Inputs/unknown-feature-model.json 2>&1 \
; RUN:   | FileCheck %s --check-prefix=UNKNOWN
; RUN: not ls %t.4.o
;
; In clang a setup error is a compiler error - one line, exit 1, no output,
; no crash banner or stack dump - at any optimization level, -O0 included,
; where the model would not even be used.
; RUN: not mlgo-clang -Oz -c -x ir %S/Inputs/features.ll -o %t.5.o \
; RUN:   -mllvm -mlgo-model=%t.missing.json 2>&1 | FileCheck %s --check-prefix=CLANG
; RUN: not ls %t.5.o
; RUN: not mlgo-clang -O0 -c -x ir %S/Inputs/features.ll -o %t.6.o \
; RUN:   -mllvm -mlgo-model=%t.missing.json 2>&1 | FileCheck %s --check-prefix=CLANG
; RUN: not ls %t.6.o
; RUN: not mlgo-clang -Oz -c -x ir %S/Inputs/features.ll -o %t.7.o \
; RUN:   -mllvm -mlgo-model=%t.missing.json -mllvm -mlgo-default-policy 2>&1 \
; RUN:   | FileCheck %s --check-prefix=CONFLICT

; MISSING: LLVM ERROR: mlgo: cannot read model '{{.*}}.missing.json': No such file or directory
; MALFORMED: LLVM ERROR: mlgo: {{.*}}malformed-model.json: {{.*}}
; UNKNOWN: mlgo: model 'never' needs input 'no_such_feature' (int64_t [1]), which the compiler does not offer

; CLANG: {{^}}error: mlgo: cannot read model '{{.*}}.missing.json': No such file or directory
; CLANG-NEXT: {{^}}1 error generated.
; CLANG-NOT: {{.}}

; CONFLICT: {{^}}error: mlgo: -mlgo-model, -mlgo-interactive-channel-base and -mlgo-default-policy are exclusive; give at most one
; CONFLICT-NEXT: {{^}}1 error generated.
; CONFLICT-NOT: {{.}}
