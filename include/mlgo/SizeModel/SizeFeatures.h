//===- mlgo/SizeModel/SizeFeatures.h - IR2Native's feature table -*- C++
//-*-===//
//
// The features the native-size predictor (IR2Native, docs/ir2native.md)
// reads about one function, defined once, as LLVM defines its MLGO feature
// lists: the enum, the names and the tensor specs are all generated from
// the two X-macro tables below. The compiler's side (mlgo/IR2Native) fills
// them from a Function; the dataset, the trainer and the models bind them by
// name, so a feature added later never breaks an older model.
//
// What and why (upstream's InlineSizeEstimatorAnalysis read the TTI size,
// block/call/loop counts, loop and dominator-tree depth, linkage, an
// opcode histogram and opcode-pair counts):
//  * the TTI code-size estimate, the target's own guess of the bytes;
//  * structure that costs bytes the IR does not show: blocks (jumps),
//    loops and their depth, the dominator tree's depth, calls (argument
//    set-up, a frame, callee-saved registers), arguments, phis (copies),
//    switch cases (jump tables or compare chains), constant operands that
//    do not fit an 8-bit immediate, 64-bit values (a REX prefix each on
//    x86-64), floating-point values, values live across blocks (register
//    pressure: spills and callee-saved registers), constant-index
//    getelementptrs (folded into addressing modes, so nearly free);
//  * the opcode histogram: the model's weight for an opcode is its
//    average size in bytes on the target;
//  * linkage: local functions can take a cheaper calling convention.
// Opcode *pairs* are left out: with ~60 opcodes they are ~3,600 features
// for a few thousand functions, which a linear model would overfit; the
// pairs that matter on x86 (compare+branch, load+op) are what `br`,
// `icmp` and `load` weights already absorb.
//
// All features are int64_t [1]; no LLVM is needed to name them.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SIZEMODEL_SIZEFEATURES_H
#define MLGO_SIZEMODEL_SIZEFEATURES_H

#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <vector>

namespace mlgo {

// M(name, description): structural features.
// clang-format off
#define MLGO_SIZE_STRUCT_FEATURES(M)                                           \
  M(tti_code_size, "sum of TargetTransformInfo's TCK_CodeSize costs")          \
  M(instructions, "IR instructions, debug intrinsics excluded")                \
  M(basic_blocks, "basic blocks")                                              \
  M(calls, "calls and invokes of functions that are not intrinsics")           \
  M(intrinsic_calls, "calls of intrinsics other than debug ones")              \
  M(loops, "natural loops")                                                    \
  M(max_loop_depth, "deepest loop nesting")                                    \
  M(domtree_depth, "depth of the dominator tree")                              \
  M(arguments, "formal arguments")                                             \
  M(is_local, "1 for internal or private linkage")                             \
  M(phi_operands, "incoming values of phis")                                   \
  M(switch_cases, "cases of switch instructions")                              \
  M(large_constants, "integer constant operands outside [-128, 127]")          \
  M(call_arguments, "arguments passed at non-intrinsic call sites")          \
  M(wide_values, "instructions producing a 64-bit integer or a pointer")     \
  M(fp_values, "instructions producing a floating-point value")              \
  M(cross_block_values, "values used outside their own block")               \
  M(constant_geps, "getelementptrs with constant indices only")              \
  M(is_comdat, "1 for linkonce, weak or COMDAT functions (C++ inline ones)") \
  M(global_operands, "operands naming a global, other than a call's callee") \
  M(vararg_calls, "calls of variadic functions (%al set before each)")       \
  M(tail_calls, "calls whose result the next instruction returns")

// M(name, LLVM Instruction opcode): one count per opcode. The opcodes LLVM
// 19 C and C++ code uses; the rest (exception pads, callbr, va_arg) add to
// instructions only.
#define MLGO_SIZE_OPCODE_FEATURES(M)                                           \
  M(op_ret, Ret) M(op_br, Br) M(op_switch, Switch)                             \
  M(op_indirectbr, IndirectBr) M(op_invoke, Invoke) M(op_resume, Resume)       \
  M(op_unreachable, Unreachable) M(op_fneg, FNeg) M(op_add, Add)               \
  M(op_fadd, FAdd) M(op_sub, Sub) M(op_fsub, FSub) M(op_mul, Mul)              \
  M(op_fmul, FMul) M(op_udiv, UDiv) M(op_sdiv, SDiv) M(op_fdiv, FDiv)          \
  M(op_urem, URem) M(op_srem, SRem) M(op_frem, FRem) M(op_shl, Shl)            \
  M(op_lshr, LShr) M(op_ashr, AShr) M(op_and, And) M(op_or, Or)                \
  M(op_xor, Xor) M(op_alloca, Alloca) M(op_load, Load) M(op_store, Store)      \
  M(op_getelementptr, GetElementPtr) M(op_fence, Fence)                        \
  M(op_cmpxchg, AtomicCmpXchg) M(op_atomicrmw, AtomicRMW)                      \
  M(op_trunc, Trunc) M(op_zext, ZExt) M(op_sext, SExt) M(op_fptoui, FPToUI)    \
  M(op_fptosi, FPToSI) M(op_uitofp, UIToFP) M(op_sitofp, SIToFP)               \
  M(op_fptrunc, FPTrunc) M(op_fpext, FPExt) M(op_ptrtoint, PtrToInt)           \
  M(op_inttoptr, IntToPtr) M(op_bitcast, BitCast) M(op_icmp, ICmp)             \
  M(op_fcmp, FCmp) M(op_phi, PHI) M(op_call, Call) M(op_select, Select)        \
  M(op_extractelement, ExtractElement) M(op_insertelement, InsertElement)      \
  M(op_shufflevector, ShuffleVector) M(op_extractvalue, ExtractValue)          \
  M(op_insertvalue, InsertValue) M(op_landingpad, LandingPad)                  \
  M(op_freeze, Freeze)
// clang-format on

/// Index of each feature in a feature vector: the structural ones, then the
/// opcodes, in table order.
enum class SizeFeature : size_t {
#define MLGO_SIZE_ENUM(NAME, ...) NAME,
  MLGO_SIZE_STRUCT_FEATURES(MLGO_SIZE_ENUM)
      MLGO_SIZE_OPCODE_FEATURES(MLGO_SIZE_ENUM)
#undef MLGO_SIZE_ENUM
          NumFeatures
};

inline constexpr size_t NumSizeFeatures =
    static_cast<size_t>(SizeFeature::NumFeatures);

/// The feature names, in feature-vector order.
llvm::ArrayRef<llvm::StringRef> getSizeFeatureNames();
/// The specs the compiler offers a size model: int64_t [1] each, in
/// feature-vector order.
std::vector<TensorSpec> getSizeFeatureSpecs();
/// The name of a size model's output: predicted native bytes.
inline constexpr llvm::StringLiteral NativeSizeOutputName = "native_size";

} // namespace mlgo

#endif // MLGO_SIZEMODEL_SIZEFEATURES_H
