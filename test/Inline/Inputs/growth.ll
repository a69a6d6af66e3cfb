; A large external function called from four places: inlining it anywhere
; grows the module, and it never becomes dead (it is exported).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @sink(i32)

define void @big(i32 %x) {
  call void @sink(i32 %x)
  %a = add i32 %x, 1
  call void @sink(i32 %a)
  %b = mul i32 %a, 3
  call void @sink(i32 %b)
  %c = xor i32 %b, %x
  call void @sink(i32 %c)
  %d = sub i32 %c, 7
  call void @sink(i32 %d)
  %e = shl i32 %d, 2
  call void @sink(i32 %e)
  ret void
}

define void @c1(i32 %x) {
  call void @big(i32 %x)
  ret void
}
define void @c2(i32 %x) {
  call void @big(i32 %x)
  ret void
}
define void @c3(i32 %x) {
  call void @big(i32 %x)
  ret void
}
define void @c4(i32 %x) {
  call void @big(i32 %x)
  ret void
}
