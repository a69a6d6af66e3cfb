; ModuleID = 'spills.c'
source_filename = "spills.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nounwind uwtable
define dso_local i32 @pressure(ptr nocapture noundef readonly %0, i32 noundef %1) local_unnamed_addr #0 !dbg !10 {
    #dbg_value(ptr %0, !17, !DIExpression(), !33)
    #dbg_value(i32 %1, !18, !DIExpression(), !33)
    #dbg_value(i32 1, !19, !DIExpression(), !33)
    #dbg_value(i32 2, !20, !DIExpression(), !33)
    #dbg_value(i32 3, !21, !DIExpression(), !33)
    #dbg_value(i32 4, !22, !DIExpression(), !33)
    #dbg_value(i32 5, !23, !DIExpression(), !33)
    #dbg_value(i32 6, !24, !DIExpression(), !33)
    #dbg_value(i32 7, !25, !DIExpression(), !33)
    #dbg_value(i32 8, !26, !DIExpression(), !33)
    #dbg_value(i32 9, !27, !DIExpression(), !33)
    #dbg_value(i32 0, !28, !DIExpression(), !34)
  %3 = icmp sgt i32 %1, 0, !dbg !35
  br i1 %3, label %4, label %15, !dbg !36

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64, !dbg !35
  br label %17, !dbg !36

6:                                                ; preds = %47
  %7 = add i32 %35, %33, !dbg !37
  %8 = add i32 %7, %37, !dbg !37
  %9 = add i32 %8, %48, !dbg !37
  %10 = add i32 %9, %49, !dbg !37
  %11 = add i32 %10, %51, !dbg !37
  %12 = add i32 %11, %53, !dbg !37
  %13 = add i32 %12, %56, !dbg !37
  %14 = add i32 %13, %31, !dbg !37
  br label %15, !dbg !37

15:                                               ; preds = %6, %2
  %16 = phi i32 [ 45, %2 ], [ %14, %6 ], !dbg !38
  ret i32 %16, !dbg !39

17:                                               ; preds = %4, %47
  %18 = phi i64 [ 0, %4 ], [ %57, %47 ]
  %19 = phi i32 [ 1, %4 ], [ %31, %47 ]
  %20 = phi i32 [ 9, %4 ], [ %56, %47 ]
  %21 = phi i32 [ 8, %4 ], [ %53, %47 ]
  %22 = phi i32 [ 7, %4 ], [ %51, %47 ]
  %23 = phi i32 [ 6, %4 ], [ %49, %47 ]
  %24 = phi i32 [ 5, %4 ], [ %48, %47 ]
  %25 = phi i32 [ 4, %4 ], [ %37, %47 ]
  %26 = phi i32 [ 3, %4 ], [ %35, %47 ]
  %27 = phi i32 [ 2, %4 ], [ %33, %47 ]
    #dbg_value(i32 %19, !19, !DIExpression(), !33)
    #dbg_value(i64 %18, !28, !DIExpression(), !34)
    #dbg_value(i32 %20, !27, !DIExpression(), !33)
    #dbg_value(i32 %21, !26, !DIExpression(), !33)
    #dbg_value(i32 %22, !25, !DIExpression(), !33)
    #dbg_value(i32 %23, !24, !DIExpression(), !33)
    #dbg_value(i32 %24, !23, !DIExpression(), !33)
    #dbg_value(i32 %25, !22, !DIExpression(), !33)
    #dbg_value(i32 %26, !21, !DIExpression(), !33)
    #dbg_value(i32 %27, !20, !DIExpression(), !33)
  %28 = getelementptr inbounds i32, ptr %0, i64 %18, !dbg !40
  %29 = load i32, ptr %28, align 4, !dbg !40, !tbaa !41
    #dbg_value(i32 %29, !30, !DIExpression(), !45)
  %30 = mul nsw i32 %29, 3, !dbg !46
  %31 = add nsw i32 %30, %19, !dbg !47
    #dbg_value(i32 %31, !19, !DIExpression(), !33)
  %32 = add nsw i32 %31, %29, !dbg !48
  %33 = xor i32 %32, %27, !dbg !49
    #dbg_value(i32 %33, !20, !DIExpression(), !33)
  %34 = ashr i32 %33, 2, !dbg !50
  %35 = add nsw i32 %34, %26, !dbg !51
    #dbg_value(i32 %35, !21, !DIExpression(), !33)
  %36 = mul nsw i32 %35, %29, !dbg !52
  %37 = sub nsw i32 %25, %36, !dbg !53
    #dbg_value(i32 %37, !22, !DIExpression(), !33)
  %38 = and i32 %29, 1, !dbg !54
  %39 = icmp eq i32 %38, 0, !dbg !54
  br i1 %39, label %43, label %40, !dbg !56

40:                                               ; preds = %17
  %41 = tail call i32 @mix(i32 noundef %37) #6, !dbg !57
  %42 = add nsw i32 %41, %24, !dbg !58
    #dbg_value(i32 %42, !23, !DIExpression(), !33)
  br label %47, !dbg !59

43:                                               ; preds = %17
  %44 = add nsw i32 %24, 11, !dbg !60
  %45 = tail call i32 @mix(i32 noundef %44) #6, !dbg !61
  %46 = xor i32 %45, %23, !dbg !62
    #dbg_value(i32 %46, !24, !DIExpression(), !33)
  br label %47

47:                                               ; preds = %43, %40
  %48 = phi i32 [ %42, %40 ], [ %24, %43 ], !dbg !33
  %49 = phi i32 [ %23, %40 ], [ %46, %43 ], !dbg !33
    #dbg_value(i32 %49, !24, !DIExpression(), !33)
    #dbg_value(i32 %48, !23, !DIExpression(), !33)
  %50 = mul nsw i32 %49, 7, !dbg !63
  %51 = add nsw i32 %50, %22, !dbg !64
    #dbg_value(i32 %51, !25, !DIExpression(), !33)
  %52 = add nsw i32 %51, %29, !dbg !65
  %53 = xor i32 %52, %21, !dbg !66
    #dbg_value(i32 %53, !26, !DIExpression(), !33)
  %54 = tail call i32 @mix(i32 noundef %53) #6, !dbg !67
  %55 = mul nsw i32 %54, %31, !dbg !68
  %56 = add nsw i32 %55, %20, !dbg !69
    #dbg_value(i32 %56, !27, !DIExpression(), !33)
  %57 = add nuw nsw i64 %18, 1, !dbg !70
    #dbg_value(i32 %31, !19, !DIExpression(), !33)
    #dbg_value(i64 %57, !28, !DIExpression(), !34)
    #dbg_value(i32 %37, !22, !DIExpression(), !33)
    #dbg_value(i32 %35, !21, !DIExpression(), !33)
    #dbg_value(i32 %33, !20, !DIExpression(), !33)
  %58 = icmp eq i64 %57, %5, !dbg !35
  br i1 %58, label %6, label %17, !dbg !36, !llvm.loop !71
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

declare !dbg !74 i32 @mix(i32 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwtable
define dso_local void @fill(ptr nocapture noundef %0, i32 noundef %1, i32 noundef %2) local_unnamed_addr #0 !dbg !77 {
  %4 = alloca [8 x i32], align 16, !DIAssignID !95
    #dbg_assign(i1 undef, !85, !DIExpression(), !95, ptr %4, !DIExpression(), !96)
    #dbg_value(ptr %0, !82, !DIExpression(), !96)
    #dbg_value(i32 %1, !83, !DIExpression(), !96)
    #dbg_value(i32 %2, !84, !DIExpression(), !96)
  call void @llvm.lifetime.start.p0(i64 32, ptr nonnull %4) #6, !dbg !97
  call void @llvm.memset.p0.i64(ptr noundef nonnull align 16 dereferenceable(32) %4, i8 0, i64 32, i1 false), !dbg !98, !DIAssignID !99
    #dbg_assign(i8 0, !85, !DIExpression(), !99, ptr %4, !DIExpression(), !96)
    #dbg_value(i32 0, !89, !DIExpression(), !100)
  %5 = icmp sgt i32 %1, 0, !dbg !101
  br i1 %5, label %6, label %45, !dbg !102

6:                                                ; preds = %3
  %7 = zext nneg i32 %1 to i64, !dbg !101
  %8 = getelementptr inbounds i8, ptr %4, i64 4
  %9 = insertelement <4 x i32> poison, i32 %2, i64 0
  %10 = shufflevector <4 x i32> %9, <4 x i32> poison, <4 x i32> zeroinitializer
  %11 = add <4 x i32> %10, <i32 1, i32 2, i32 3, i32 4>
  %12 = add i32 %2, 5
  %13 = getelementptr inbounds i8, ptr %4, i64 20
  %14 = add i32 %2, 6
  %15 = getelementptr inbounds i8, ptr %4, i64 24
  %16 = add i32 %2, 7
  %17 = getelementptr inbounds i8, ptr %4, i64 28
  br label %18, !dbg !102

18:                                               ; preds = %6, %48
  %19 = phi i64 [ 0, %6 ], [ %49, %48 ]
    #dbg_value(i64 %19, !89, !DIExpression(), !100)
  %20 = getelementptr inbounds i32, ptr %0, i64 %19
  %21 = load i32, ptr %20, align 4, !tbaa !41
    #dbg_value(i32 0, !91, !DIExpression(), !103)
    #dbg_value(i64 0, !91, !DIExpression(), !103)
  %22 = mul i32 %21, %2, !dbg !104
  %23 = load i32, ptr %4, align 16, !dbg !106, !tbaa !41
  %24 = add nsw i32 %23, %22, !dbg !106
  store i32 %24, ptr %4, align 16, !dbg !106, !tbaa !41
    #dbg_value(i64 1, !91, !DIExpression(), !103)
    #dbg_value(i64 2, !91, !DIExpression(), !103)
    #dbg_value(i64 3, !91, !DIExpression(), !103)
    #dbg_value(i64 4, !91, !DIExpression(), !103)
  %25 = insertelement <4 x i32> poison, i32 %21, i64 0, !dbg !104
  %26 = shufflevector <4 x i32> %25, <4 x i32> poison, <4 x i32> zeroinitializer, !dbg !104
  %27 = mul <4 x i32> %11, %26, !dbg !104
  %28 = load <4 x i32>, ptr %8, align 4, !dbg !106, !tbaa !41
  %29 = add nsw <4 x i32> %28, %27, !dbg !106
  store <4 x i32> %29, ptr %8, align 4, !dbg !106, !tbaa !41
    #dbg_value(i64 5, !91, !DIExpression(), !103)
  %30 = mul i32 %12, %21, !dbg !104
  %31 = load i32, ptr %13, align 4, !dbg !106, !tbaa !41
  %32 = add nsw i32 %31, %30, !dbg !106
  store i32 %32, ptr %13, align 4, !dbg !106, !tbaa !41
    #dbg_value(i64 6, !91, !DIExpression(), !103)
  %33 = mul i32 %14, %21, !dbg !104
  %34 = load i32, ptr %15, align 8, !dbg !106, !tbaa !41
  %35 = add nsw i32 %34, %33, !dbg !106
  store i32 %35, ptr %15, align 8, !dbg !106, !tbaa !41
    #dbg_value(i64 7, !91, !DIExpression(), !103)
  %36 = mul i32 %16, %21, !dbg !104
  %37 = load i32, ptr %17, align 4, !dbg !106, !tbaa !41
  %38 = add nsw i32 %37, %36, !dbg !106
  store i32 %38, ptr %17, align 4, !dbg !106, !tbaa !41
    #dbg_value(i64 8, !91, !DIExpression(), !103)
  %39 = icmp sgt i32 %21, 100, !dbg !107
  br i1 %39, label %47, label %48, !dbg !109

40:                                               ; preds = %48
  %41 = getelementptr inbounds i8, ptr %4, i64 28
  %42 = load i32, ptr %4, align 16, !dbg !110, !tbaa !41
  %43 = load i32, ptr %41, align 4, !dbg !111, !tbaa !41
  %44 = add nsw i32 %43, %42, !dbg !110
  br label %45, !dbg !110

45:                                               ; preds = %40, %3
  %46 = phi i32 [ %44, %40 ], [ 0, %3 ], !dbg !112
  store i32 %46, ptr %0, align 4, !dbg !113, !tbaa !41
  call void @llvm.lifetime.end.p0(i64 32, ptr nonnull %4) #6, !dbg !114
  ret void, !dbg !114

47:                                               ; preds = %18
  call void @sink(ptr noundef nonnull %4, i32 noundef 8) #6, !dbg !115
  br label %48, !dbg !115

48:                                               ; preds = %18, %47
  %49 = add nuw nsw i64 %19, 1, !dbg !116
    #dbg_value(i64 %49, !89, !DIExpression(), !100)
  %50 = icmp eq i64 %49, %7, !dbg !101
  br i1 %50, label %40, label %18, !dbg !102, !llvm.loop !117
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #3

declare !dbg !119 void @sink(ptr noundef, i32 noundef) local_unnamed_addr #2

; Function Attrs: nounwind uwtable
define dso_local double @poly(ptr nocapture noundef readonly %0, i32 noundef %1) local_unnamed_addr #0 !dbg !122 {
    #dbg_value(ptr %0, !129, !DIExpression(), !137)
    #dbg_value(i32 %1, !130, !DIExpression(), !137)
    #dbg_value(double 0.000000e+00, !131, !DIExpression(), !137)
    #dbg_value(i32 0, !132, !DIExpression(), !138)
  %3 = icmp sgt i32 %1, 0, !dbg !139
  br i1 %3, label %4, label %6, !dbg !140

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64, !dbg !139
  br label %8, !dbg !140

6:                                                ; preds = %8, %2
  %7 = phi double [ 0.000000e+00, %2 ], [ %17, %8 ], !dbg !137
  ret double %7, !dbg !141

8:                                                ; preds = %4, %8
  %9 = phi i64 [ 0, %4 ], [ %18, %8 ]
  %10 = phi double [ 0.000000e+00, %4 ], [ %17, %8 ]
    #dbg_value(double %10, !131, !DIExpression(), !137)
    #dbg_value(i64 %9, !132, !DIExpression(), !138)
  %11 = getelementptr inbounds double, ptr %0, i64 %9, !dbg !142
  %12 = load double, ptr %11, align 8, !dbg !142, !tbaa !143
    #dbg_value(double %12, !134, !DIExpression(), !145)
  %13 = tail call double @llvm.fmuladd.f64(double %12, double 1.500000e+00, double 2.500000e-01), !dbg !146
  %14 = tail call double @weigh(double noundef %13) #6, !dbg !147
  %15 = fmul double %12, -1.250000e-01, !dbg !148
  %16 = tail call double @llvm.fmuladd.f64(double %14, double 2.750000e+00, double %15), !dbg !148
  %17 = fadd double %10, %16, !dbg !149
    #dbg_value(double %17, !131, !DIExpression(), !137)
  %18 = add nuw nsw i64 %9, 1, !dbg !150
    #dbg_value(i64 %18, !132, !DIExpression(), !138)
  %19 = icmp eq i64 %18, %5, !dbg !139
  br i1 %19, label %6, label %8, !dbg !140, !llvm.loop !151
}

declare !dbg !153 double @weigh(double noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #4

; Function Attrs: nounwind uwtable
define dso_local i32 @with_asm(i32 noundef %0) local_unnamed_addr #0 !dbg !156 {
    #dbg_value(i32 %0, !158, !DIExpression(), !160)
  %2 = tail call i32 asm sideeffect "leal 1($1), $0", "=r,r,~{memory},~{dirflag},~{fpsr},~{flags}"(i32 %0) #6, !dbg !161, !srcloc !162
    #dbg_value(i32 %2, !159, !DIExpression(), !160)
  %3 = tail call i32 @mix(i32 noundef %2) #6, !dbg !163
  %4 = add nsw i32 %3, %2, !dbg !164
  ret i32 %4, !dbg !165
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable
define dso_local range(i32 -2147483647, -2147483648) i32 @leaf(i32 noundef %0) local_unnamed_addr #5 !dbg !166 {
    #dbg_value(i32 %0, !168, !DIExpression(), !169)
  %2 = shl nsw i32 %0, 1, !dbg !170
  %3 = or disjoint i32 %2, 1, !dbg !171
  ret i32 %3, !dbg !172
}

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nounwind willreturn memory(argmem: write) }
attributes #4 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7, !8}
!llvm.ident = !{!9}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "spills.c", directory: ".", checksumkind: CSK_MD5, checksum: "e4bca4d8710130785f2e1e1fe0f6a1cc")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 8, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 2}
!8 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!9 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!10 = distinct !DISubprogram(name: "pressure", scope: !1, file: !1, line: 15, type: !11, scopeLine: 15, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !16)
!11 = !DISubroutineType(types: !12)
!12 = !{!13, !14, !13}
!13 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!14 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !15, size: 64)
!15 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !13)
!16 = !{!17, !18, !19, !20, !21, !22, !23, !24, !25, !26, !27, !28, !30}
!17 = !DILocalVariable(name: "a", arg: 1, scope: !10, file: !1, line: 15, type: !14)
!18 = !DILocalVariable(name: "n", arg: 2, scope: !10, file: !1, line: 15, type: !13)
!19 = !DILocalVariable(name: "s0", scope: !10, file: !1, line: 16, type: !13)
!20 = !DILocalVariable(name: "s1", scope: !10, file: !1, line: 16, type: !13)
!21 = !DILocalVariable(name: "s2", scope: !10, file: !1, line: 16, type: !13)
!22 = !DILocalVariable(name: "s3", scope: !10, file: !1, line: 16, type: !13)
!23 = !DILocalVariable(name: "s4", scope: !10, file: !1, line: 16, type: !13)
!24 = !DILocalVariable(name: "s5", scope: !10, file: !1, line: 16, type: !13)
!25 = !DILocalVariable(name: "s6", scope: !10, file: !1, line: 16, type: !13)
!26 = !DILocalVariable(name: "s7", scope: !10, file: !1, line: 16, type: !13)
!27 = !DILocalVariable(name: "s8", scope: !10, file: !1, line: 16, type: !13)
!28 = !DILocalVariable(name: "i", scope: !29, file: !1, line: 17, type: !13)
!29 = distinct !DILexicalBlock(scope: !10, file: !1, line: 17, column: 3)
!30 = !DILocalVariable(name: "v", scope: !31, file: !1, line: 18, type: !13)
!31 = distinct !DILexicalBlock(scope: !32, file: !1, line: 17, column: 31)
!32 = distinct !DILexicalBlock(scope: !29, file: !1, line: 17, column: 3)
!33 = !DILocation(line: 0, scope: !10)
!34 = !DILocation(line: 0, scope: !29)
!35 = !DILocation(line: 17, column: 21, scope: !32)
!36 = !DILocation(line: 17, column: 3, scope: !29)
!37 = !DILocation(line: 31, column: 13, scope: !10)
!38 = !DILocation(line: 31, column: 48, scope: !10)
!39 = !DILocation(line: 31, column: 3, scope: !10)
!40 = !DILocation(line: 18, column: 13, scope: !31)
!41 = !{!42, !42, i64 0}
!42 = !{!"int", !43, i64 0}
!43 = !{!"omnipotent char", !44, i64 0}
!44 = !{!"Simple C/C++ TBAA"}
!45 = !DILocation(line: 0, scope: !31)
!46 = !DILocation(line: 19, column: 13, scope: !31)
!47 = !DILocation(line: 19, column: 8, scope: !31)
!48 = !DILocation(line: 20, column: 13, scope: !31)
!49 = !DILocation(line: 20, column: 8, scope: !31)
!50 = !DILocation(line: 21, column: 14, scope: !31)
!51 = !DILocation(line: 21, column: 8, scope: !31)
!52 = !DILocation(line: 22, column: 13, scope: !31)
!53 = !DILocation(line: 22, column: 8, scope: !31)
!54 = !DILocation(line: 23, column: 11, scope: !55)
!55 = distinct !DILexicalBlock(scope: !31, file: !1, line: 23, column: 9)
!56 = !DILocation(line: 23, column: 9, scope: !31)
!57 = !DILocation(line: 24, column: 13, scope: !55)
!58 = !DILocation(line: 24, column: 10, scope: !55)
!59 = !DILocation(line: 24, column: 7, scope: !55)
!60 = !DILocation(line: 26, column: 20, scope: !55)
!61 = !DILocation(line: 26, column: 13, scope: !55)
!62 = !DILocation(line: 26, column: 10, scope: !55)
!63 = !DILocation(line: 27, column: 14, scope: !31)
!64 = !DILocation(line: 27, column: 8, scope: !31)
!65 = !DILocation(line: 28, column: 14, scope: !31)
!66 = !DILocation(line: 28, column: 8, scope: !31)
!67 = !DILocation(line: 29, column: 11, scope: !31)
!68 = !DILocation(line: 29, column: 19, scope: !31)
!69 = !DILocation(line: 29, column: 8, scope: !31)
!70 = !DILocation(line: 17, column: 26, scope: !32)
!71 = distinct !{!71, !36, !72, !73}
!72 = !DILocation(line: 30, column: 3, scope: !29)
!73 = !{!"llvm.loop.mustprogress"}
!74 = !DISubprogram(name: "mix", scope: !1, file: !1, line: 8, type: !75, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!75 = !DISubroutineType(types: !76)
!76 = !{!13, !13}
!77 = distinct !DISubprogram(name: "fill", scope: !1, file: !1, line: 36, type: !78, scopeLine: 36, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !81)
!78 = !DISubroutineType(types: !79)
!79 = !{null, !80, !13, !13}
!80 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !13, size: 64)
!81 = !{!82, !83, !84, !85, !89, !91}
!82 = !DILocalVariable(name: "out", arg: 1, scope: !77, file: !1, line: 36, type: !80)
!83 = !DILocalVariable(name: "n", arg: 2, scope: !77, file: !1, line: 36, type: !13)
!84 = !DILocalVariable(name: "k", arg: 3, scope: !77, file: !1, line: 36, type: !13)
!85 = !DILocalVariable(name: "t", scope: !77, file: !1, line: 37, type: !86)
!86 = !DICompositeType(tag: DW_TAG_array_type, baseType: !13, size: 256, elements: !87)
!87 = !{!88}
!88 = !DISubrange(count: 8)
!89 = !DILocalVariable(name: "i", scope: !90, file: !1, line: 38, type: !13)
!90 = distinct !DILexicalBlock(scope: !77, file: !1, line: 38, column: 3)
!91 = !DILocalVariable(name: "j", scope: !92, file: !1, line: 39, type: !13)
!92 = distinct !DILexicalBlock(scope: !93, file: !1, line: 39, column: 5)
!93 = distinct !DILexicalBlock(scope: !94, file: !1, line: 38, column: 31)
!94 = distinct !DILexicalBlock(scope: !90, file: !1, line: 38, column: 3)
!95 = distinct !DIAssignID()
!96 = !DILocation(line: 0, scope: !77)
!97 = !DILocation(line: 37, column: 3, scope: !77)
!98 = !DILocation(line: 37, column: 7, scope: !77)
!99 = distinct !DIAssignID()
!100 = !DILocation(line: 0, scope: !90)
!101 = !DILocation(line: 38, column: 21, scope: !94)
!102 = !DILocation(line: 38, column: 3, scope: !90)
!103 = !DILocation(line: 0, scope: !92)
!104 = !DILocation(line: 40, column: 22, scope: !105)
!105 = distinct !DILexicalBlock(scope: !92, file: !1, line: 39, column: 5)
!106 = !DILocation(line: 40, column: 12, scope: !105)
!107 = !DILocation(line: 41, column: 16, scope: !108)
!108 = distinct !DILexicalBlock(scope: !93, file: !1, line: 41, column: 9)
!109 = !DILocation(line: 41, column: 9, scope: !93)
!110 = !DILocation(line: 44, column: 12, scope: !77)
!111 = !DILocation(line: 44, column: 19, scope: !77)
!112 = !DILocation(line: 44, column: 17, scope: !77)
!113 = !DILocation(line: 44, column: 10, scope: !77)
!114 = !DILocation(line: 45, column: 1, scope: !77)
!115 = !DILocation(line: 42, column: 7, scope: !108)
!116 = !DILocation(line: 38, column: 26, scope: !94)
!117 = distinct !{!117, !102, !118, !73}
!118 = !DILocation(line: 43, column: 3, scope: !90)
!119 = !DISubprogram(name: "sink", scope: !1, file: !1, line: 9, type: !120, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!120 = !DISubroutineType(types: !121)
!121 = !{null, !80, !13}
!122 = distinct !DISubprogram(name: "poly", scope: !1, file: !1, line: 49, type: !123, scopeLine: 49, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !128)
!123 = !DISubroutineType(types: !124)
!124 = !{!125, !126, !13}
!125 = !DIBasicType(name: "double", size: 64, encoding: DW_ATE_float)
!126 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !127, size: 64)
!127 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !125)
!128 = !{!129, !130, !131, !132, !134}
!129 = !DILocalVariable(name: "x", arg: 1, scope: !122, file: !1, line: 49, type: !126)
!130 = !DILocalVariable(name: "n", arg: 2, scope: !122, file: !1, line: 49, type: !13)
!131 = !DILocalVariable(name: "acc", scope: !122, file: !1, line: 50, type: !125)
!132 = !DILocalVariable(name: "i", scope: !133, file: !1, line: 51, type: !13)
!133 = distinct !DILexicalBlock(scope: !122, file: !1, line: 51, column: 3)
!134 = !DILocalVariable(name: "v", scope: !135, file: !1, line: 52, type: !125)
!135 = distinct !DILexicalBlock(scope: !136, file: !1, line: 51, column: 31)
!136 = distinct !DILexicalBlock(scope: !133, file: !1, line: 51, column: 3)
!137 = !DILocation(line: 0, scope: !122)
!138 = !DILocation(line: 0, scope: !133)
!139 = !DILocation(line: 51, column: 21, scope: !136)
!140 = !DILocation(line: 51, column: 3, scope: !133)
!141 = !DILocation(line: 55, column: 3, scope: !122)
!142 = !DILocation(line: 52, column: 16, scope: !135)
!143 = !{!144, !144, i64 0}
!144 = !{!"double", !43, i64 0}
!145 = !DILocation(line: 0, scope: !135)
!146 = !DILocation(line: 53, column: 26, scope: !135)
!147 = !DILocation(line: 53, column: 12, scope: !135)
!148 = !DILocation(line: 53, column: 41, scope: !135)
!149 = !DILocation(line: 53, column: 9, scope: !135)
!150 = !DILocation(line: 51, column: 26, scope: !136)
!151 = distinct !{!151, !140, !152, !73}
!152 = !DILocation(line: 54, column: 3, scope: !133)
!153 = !DISubprogram(name: "weigh", scope: !1, file: !1, line: 10, type: !154, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!154 = !DISubroutineType(types: !155)
!155 = !{!125, !125}
!156 = distinct !DISubprogram(name: "with_asm", scope: !1, file: !1, line: 60, type: !75, scopeLine: 60, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !157)
!157 = !{!158, !159}
!158 = !DILocalVariable(name: "x", arg: 1, scope: !156, file: !1, line: 60, type: !13)
!159 = !DILocalVariable(name: "y", scope: !156, file: !1, line: 61, type: !13)
!160 = !DILocation(line: 0, scope: !156)
!161 = !DILocation(line: 62, column: 3, scope: !156)
!162 = !{i64 1915}
!163 = !DILocation(line: 63, column: 14, scope: !156)
!164 = !DILocation(line: 63, column: 12, scope: !156)
!165 = !DILocation(line: 63, column: 3, scope: !156)
!166 = distinct !DISubprogram(name: "leaf", scope: !1, file: !1, line: 66, type: !75, scopeLine: 66, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !167)
!167 = !{!168}
!168 = !DILocalVariable(name: "x", arg: 1, scope: !166, file: !1, line: 66, type: !13)
!169 = !DILocation(line: 0, scope: !166)
!170 = !DILocation(line: 66, column: 28, scope: !166)
!171 = !DILocation(line: 66, column: 32, scope: !166)
!172 = !DILocation(line: 66, column: 19, scope: !166)
