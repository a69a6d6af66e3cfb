; A training log that cannot be written (a full disk; /dev/full fails every
; write with ENOSPC) fails the compilation with an error naming the file,
; not the crash banner of an unchecked stream ("fatal error: error in
; backend: IO failure on output stream", "PLEASE submit a bug report"),
; and no object is written.
;
; RUN: not mlgo-clang -Oz -c -x ir %S/Inputs/features.ll -o %t.o \
; RUN:   -mllvm -mlgo-training-log=/dev/full 2>&1 | FileCheck %s
; RUN: not ls %t.o
; CHECK-NOT: PLEASE submit
; CHECK: error: mlgo: cannot write training log '/dev/full': No space left on device
; CHECK-NOT: PLEASE submit
; CHECK: 1 error generated.
