; Call sites whose decisions are never delegated to the policy.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @sink(i32)

define internal void @always(i32 %x) alwaysinline {
  call void @sink(i32 %x)
  ret void
}

define internal void @never(i32 %x) noinline {
  call void @sink(i32 %x)
  call void @sink(i32 %x)
  ret void
}

define internal void @plain(i32 %x) {
  call void @sink(i32 %x)
  ret void
}

define i32 @recursive(i32 %n) {
entry:
  %c = icmp eq i32 %n, 0
  br i1 %c, label %done, label %rec
rec:
  %m = sub i32 %n, 1
  %r = call i32 @recursive(i32 %m)
  call void @sink(i32 %r)
  ret i32 %r
done:
  ret i32 0
}

define void @caller(i32 %x) {
  call void @always(i32 %x)
  call void @never(i32 %x)
  call void @plain(i32 %x)
  ret void
}
