; A linkonce_odr callee (a C++ inline function) that itself calls a defined
; function, called inside a two-deep loop nest.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @sink(i32)

define void @leaf(i32 %x) noinline {
  call void @sink(i32 %x)
  ret void
}

define linkonce_odr void @lo(i32 %x) {
  call void @leaf(i32 %x)
  %y = add i32 %x, 1
  call void @sink(i32 %y)
  ret void
}

define void @nest(i32 %n) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  call void @lo(i32 %j)
  %j.next = add i32 %j, 1
  %jc = icmp slt i32 %j.next, %n
  br i1 %jc, label %inner, label %outer.latch
outer.latch:
  %i.next = add i32 %i, 1
  %ic = icmp slt i32 %i.next, %n
  br i1 %ic, label %outer, label %exit
exit:
  ret void
}
