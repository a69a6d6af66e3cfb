; Inlinings of every shape the advisor's tracking handles: calls in loops,
; callees with loops and branches (new loops, new blocks), a callee that
; never returns (it cuts the caller's old paths), an invoke of a nounwind
; callee (it drops the edge to the landing pad) and of a callee that
; resumes (it splits the landing pad). Every function is minsize, as at
; clang -Oz.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @ext(i32)
declare void @abort() noreturn nounwind
declare i32 @__gxx_personality_v0(...)

define internal void @sum(i32 %n) #0 {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  call void @ext(i32 %i)
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define internal void @pick(i32 %x) #0 {
entry:
  %c = icmp sgt i32 %x, 3
  br i1 %c, label %big, label %small
big:
  call void @ext(i32 1)
  br label %out
small:
  call void @sum(i32 %x)
  br label %out
out:
  ret void
}

define internal void @die(i32 %x) #0 {
entry:
  call void @ext(i32 %x)
  call void @abort()
  unreachable
}

define internal void @quiet(i32 %x) #1 {
entry:
  %y = add i32 %x, 1
  ret void
}

define internal void @throws(i32 %x) #0 personality ptr @__gxx_personality_v0 {
entry:
  invoke void @ext(i32 %x) to label %ok unwind label %lp
ok:
  call void @ext(i32 2)
  ret void
lp:
  %l = landingpad { ptr, i32 } cleanup
  call void @ext(i32 3)
  resume { ptr, i32 } %l
}

define void @driver(i32 %n, i32 %m) #0 personality ptr @__gxx_personality_v0 {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %inext, %latch ]
  call void @sum(i32 %i)
  call void @pick(i32 %i)
  %bad = icmp eq i32 %i, 100
  br i1 %bad, label %fail, label %inner
fail:
  call void @die(i32 %i)
  br label %latch
inner:
  invoke void @quiet(i32 %i) to label %cont unwind label %lpad
cont:
  invoke void @throws(i32 %i) to label %latch unwind label %lpad
latch:
  %inext = add i32 %i, 1
  %again = icmp slt i32 %inext, %n
  br i1 %again, label %outer, label %done
done:
  call void @pick(i32 %m)
  call void @sum(i32 %m)
  ret void
lpad:
  %l = landingpad { ptr, i32 } cleanup
  call void @ext(i32 9)
  br label %latch
}

attributes #0 = { minsize optsize }
attributes #1 = { minsize optsize nounwind }
