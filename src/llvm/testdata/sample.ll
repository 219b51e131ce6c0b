; A hand-written module in the shape clang-19 + opt-19 emit for CUDA.
source_filename = "kernel.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.Pair = type { i32, [2 x i64] }
%class.Packed = type <{ [4 x i32], i64, [4 x i8] }>
%struct.Opaque = type opaque

$_Z3cnt = comdat any

@_Z3cnt = linkonce_odr dso_local addrspace(1) externally_initialized global %class.Packed zeroinitializer, comdat, align 8
@flag = dso_local addrspace(1) global i32 7, align 4
@tile = internal addrspace(3) global [256 x i32] undef, align 4
@table = dso_local addrspace(4) externally_initialized global ptr null, align 8
@msg = private unnamed_addr addrspace(4) constant [3 x i8] c"ok\00", align 1
@ext = external addrspace(1) global i32, align 4
@llvm.compiler.used = appending global [1 x ptr] [ptr addrspacecast (ptr addrspace(1) @_Z3cnt to ptr)], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z6kernelPj(ptr noundef %0, i32 noundef range(i32 0, 1024) %1) #0 !dbg !10 {
  %3 = call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !14
  %.not = icmp eq i32 %3, 0, !dbg !14
  br i1 %.not, label %4, label %spin.exit, !dbg !14

4:                                                ; preds = %2
  %5 = atomicrmw add ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(1) @_Z3cnt to ptr), i64 16), i32 1 seq_cst, align 4, !dbg !15
  %6 = cmpxchg weak volatile ptr %0, i32 0, i32 %5 syncscope("block") acquire monotonic, align 4, !dbg !17
  %7 = extractvalue { i32, i1 } %6, 1
  %8 = load volatile i32, ptr addrspacecast (ptr addrspace(1) @flag to ptr), align 4, !dbg !15, !tbaa !20
  store atomic i32 %8, ptr %0 syncscope("device") release, align 4
  %9 = load atomic i32, ptr %0 acquire, align 4
  fence syncscope("block") acq_rel
  tail call void @llvm.nvvm.membar.gl(), !dbg !15
  call void asm sideeffect "st.global.release.sys.b32 [$1], $0;", "r,l"(i32 %9, ptr %0) #1, !dbg !15, !srcloc !21
  %10 = call { i32, i32 } asm "mov.b64 $0, $2;\0A mov.b64 $1, $3;", "=r,=r,l,l"(i64 1, i64 2)
  switch i32 %8, label %spin.exit [
    i32 0, label %11
    i32 -1, label %11
  ], !dbg !15

11:                                               ; preds = %4, %4
  %12 = phi i32 [ %8, %4 ], [ 0, %4 ]
  %13 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tile, i64 0, i64 3
  %14 = addrspacecast ptr addrspace(3) %13 to ptr
  %15 = zext nneg i32 %12 to i64
  %16 = select i1 %7, i64 %15, i64 -5
  %17 = fdiv contract float 1.000000e+00, 0x3FF0000000000000
  %18 = freeze i32 %12
  %19 = alloca %struct.Pair, align 8
  %20 = insertvalue %struct.Pair poison, i32 %18, 0
  %21 = extractvalue %struct.Pair %20, 1, 1
  %22 = or disjoint i32 %18, 1
  %23 = call contract float @__nv_ceilf(float %17) #1
  unreachable

spin.exit:                                        ; preds = %4, %2
  ret void, !dbg !18
}

declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2
declare void @llvm.nvvm.membar.gl() #3
declare dso_local float @__nv_ceilf(float) #3

attributes #0 = { convergent mustprogress norecurse nounwind "target-cpu"="sm_90" }
attributes #1 = { nounwind }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nocallback nounwind }

!llvm.module.flags = !{!0}
!llvm.dbg.cu = !{!1}
!nvvm.annotations = !{!8}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !2, producer: "clang version 19.1.7", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!2 = !DIFile(filename: "kernel.cu", directory: "/home/user/proj")
!3 = !DIFile(filename: "/usr/local/cuda/include/device_atomic_functions.hpp", directory: "")
!8 = !{ptr @_Z6kernelPj, !"kernel", i32 1}
!10 = distinct !DISubprogram(name: "kernel", scope: !2, file: !2, line: 3, type: !11, scopeLine: 3, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !1)
!11 = !DISubroutineType(types: !12)
!12 = !{}
!13 = distinct !DISubprogram(name: "atomicAdd", scope: !3, file: !3, line: 110, type: !11, scopeLine: 111, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition, unit: !1)
!14 = !DILocation(line: 4, column: 7, scope: !10)
!15 = !DILocation(line: 112, column: 10, scope: !13, inlinedAt: !16)
!16 = distinct !DILocation(line: 5, column: 3, scope: !19)
!17 = !DILocation(line: 6, scope: !19)
!18 = !DILocation(line: 9, column: 1, scope: !10)
!19 = distinct !DILexicalBlock(scope: !10, file: !2, line: 4, column: 20)
!20 = !{!"int", !22, i64 0}
!21 = !{i64 1234}
!22 = !{!"omnipotent char", !23, i64 0}
!23 = !{!"Simple C++ TBAA"}
