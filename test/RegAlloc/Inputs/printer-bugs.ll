; ModuleID = 'printer-bugs.c'
source_filename = "printer-bugs.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@hook = external local_unnamed_addr global ptr, align 8

; Function Attrs: nounwind uwtable
define dso_local void @disjoint_arrays() local_unnamed_addr #0 !dbg !10 {
  %1 = alloca [4 x i32], align 16, !DIAssignID !22
    #dbg_assign(i1 undef, !14, !DIExpression(), !22, ptr %1, !DIExpression(), !23)
  %2 = alloca [4 x i32], align 16, !DIAssignID !24
    #dbg_assign(i1 undef, !20, !DIExpression(), !24, ptr %2, !DIExpression(), !25)
  call void @llvm.lifetime.start.p0(i64 16, ptr nonnull %1) #4, !dbg !26
  call void @use(ptr noundef nonnull %1) #4, !dbg !27
  call void @llvm.lifetime.end.p0(i64 16, ptr nonnull %1) #4, !dbg !28
  call void @llvm.lifetime.start.p0(i64 16, ptr nonnull %2) #4, !dbg !29
  call void @use(ptr noundef nonnull %2) #4, !dbg !30
  call void @llvm.lifetime.end.p0(i64 16, ptr nonnull %2) #4, !dbg !31
  ret void, !dbg !32
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

declare !dbg !33 void @use(ptr noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwtable
define dso_local void @zero_around_call(ptr noundef %0, ptr nocapture noundef writeonly %1) local_unnamed_addr #0 !dbg !37 {
    #dbg_value(ptr %0, !54, !DIExpression(), !56)
    #dbg_value(ptr %1, !55, !DIExpression(), !56)
  tail call void @llvm.memset.p0.i64(ptr noundef nonnull align 8 dereferenceable(32) %0, i8 0, i64 32, i1 false), !dbg !57
  %3 = load ptr, ptr @hook, align 8, !dbg !58, !tbaa !59
  %4 = tail call i64 %3(ptr noundef %0, i64 noundef 0) #4, !dbg !58
  tail call void @llvm.memset.p0.i64(ptr noundef nonnull align 8 dereferenceable(16) %1, i8 0, i64 16, i1 false), !dbg !63
  ret void, !dbg !64
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nounwind willreturn memory(argmem: write) }
attributes #4 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7, !8}
!llvm.ident = !{!9}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "Debian clang version 19.1.7 (3~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "printer-bugs.c", directory: ".", checksumkind: CSK_MD5, checksum: "b6ebf72cc6ebecb052a0217f4bc4396d")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 8, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 2}
!8 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!9 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!10 = distinct !DISubprogram(name: "disjoint_arrays", scope: !1, file: !1, line: 14, type: !11, scopeLine: 14, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !13)
!11 = !DISubroutineType(types: !12)
!12 = !{null}
!13 = !{!14, !20}
!14 = !DILocalVariable(name: "x", scope: !15, file: !1, line: 16, type: !16)
!15 = distinct !DILexicalBlock(scope: !10, file: !1, line: 15, column: 3)
!16 = !DICompositeType(tag: DW_TAG_array_type, baseType: !17, size: 128, elements: !18)
!17 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!18 = !{!19}
!19 = !DISubrange(count: 4)
!20 = !DILocalVariable(name: "y", scope: !21, file: !1, line: 20, type: !16)
!21 = distinct !DILexicalBlock(scope: !10, file: !1, line: 19, column: 3)
!22 = distinct !DIAssignID()
!23 = !DILocation(line: 0, scope: !15)
!24 = distinct !DIAssignID()
!25 = !DILocation(line: 0, scope: !21)
!26 = !DILocation(line: 16, column: 5, scope: !15)
!27 = !DILocation(line: 17, column: 5, scope: !15)
!28 = !DILocation(line: 18, column: 3, scope: !10)
!29 = !DILocation(line: 20, column: 5, scope: !21)
!30 = !DILocation(line: 21, column: 5, scope: !21)
!31 = !DILocation(line: 22, column: 3, scope: !10)
!32 = !DILocation(line: 23, column: 1, scope: !10)
!33 = !DISubprogram(name: "use", scope: !1, file: !1, line: 9, type: !34, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!34 = !DISubroutineType(types: !35)
!35 = !{null, !36}
!36 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !17, size: 64)
!37 = distinct !DISubprogram(name: "zero_around_call", scope: !1, file: !1, line: 34, type: !38, scopeLine: 34, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !53)
!38 = !DISubroutineType(types: !39)
!39 = !{null, !40, !46}
!40 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !41, size: 64)
!41 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "big", file: !1, line: 25, size: 256, elements: !42)
!42 = !{!43}
!43 = !DIDerivedType(tag: DW_TAG_member, name: "a", scope: !41, file: !1, line: 26, baseType: !44, size: 256)
!44 = !DICompositeType(tag: DW_TAG_array_type, baseType: !45, size: 256, elements: !18)
!45 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
!46 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !47, size: 64)
!47 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "small", file: !1, line: 28, size: 128, elements: !48)
!48 = !{!49}
!49 = !DIDerivedType(tag: DW_TAG_member, name: "a", scope: !47, file: !1, line: 29, baseType: !50, size: 128)
!50 = !DICompositeType(tag: DW_TAG_array_type, baseType: !45, size: 128, elements: !51)
!51 = !{!52}
!52 = !DISubrange(count: 2)
!53 = !{!54, !55}
!54 = !DILocalVariable(name: "b", arg: 1, scope: !37, file: !1, line: 34, type: !40)
!55 = !DILocalVariable(name: "s", arg: 2, scope: !37, file: !1, line: 34, type: !46)
!56 = !DILocation(line: 0, scope: !37)
!57 = !DILocation(line: 35, column: 3, scope: !37)
!58 = !DILocation(line: 36, column: 3, scope: !37)
!59 = !{!60, !60, i64 0}
!60 = !{!"any pointer", !61, i64 0}
!61 = !{!"omnipotent char", !62, i64 0}
!62 = !{!"Simple C/C++ TBAA"}
!63 = !DILocation(line: 37, column: 3, scope: !37)
!64 = !DILocation(line: 38, column: 1, scope: !37)
