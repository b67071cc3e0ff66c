//===- WgmmaToNVVM.cpp - Lower warpgroup MMA ops --------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.wgmma_descriptor -> the 64-bit matrix descriptor (integer arithmetic)
// tile.wgmma            -> nvvm.wgmma.mma_async (accumulators as a struct)
// tile.wgmma_rs         -> inline PTX wgmma.mma_async with A in registers
// tile.wgmma_fence/commit_group/wait_group -> nvvm.wgmma.*
// tile.wgmma_fence_operand -> an empty inline-asm statement on the registers
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/WgmmaTypes.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// NVVM's name of a wgmma input type (verified by T-WGMMA-2).
NVVM::WGMMATypes getWgmmaType(Type type) {
  if (type.isF16())
    return NVVM::WGMMATypes::f16;
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (isa<Float8E4M3FNType>(type))
    return NVVM::WGMMATypes::e4m3;
  assert(isa<Float8E5M2Type>(type) && "not a wgmma input type");
  return NVVM::WGMMATypes::e5m2;
}

/// The layout-type field (bits 62..63) of a swizzled operand.
int64_t getLayoutType(TmaSwizzleMode mode) {
  switch (mode) {
  case TmaSwizzleMode::b128:
    return 1;
  case TmaSwizzleMode::b64:
    return 2;
  case TmaSwizzleMode::b32:
    return 3;
  case TmaSwizzleMode::none:
    return 0;
  }
  llvm_unreachable("unknown swizzle mode");
}

struct WgmmaDescriptorOpLowering : ConvertOpToLLVMPattern<WgmmaDescriptorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WgmmaDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SwizzleAttr swizzle = op.getSwizzle();
    Type i64 = rewriter.getI64Type();
    auto constant = [&](int64_t value) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64, value);
    };
    Value start = getStartAddress(op, adaptor, rewriter);
    // Stride byte offset: 8 rows of the swizzle span (8-row groups of M/N
    // for K-major tiles, of K for MN-major ones). Leading byte offset:
    // unused for swizzled K-major tiles (16), the stride between MN chunks
    // (K rows x span) for MN-major ones. Layout type from the swizzle.
    int64_t span = swizzle.getSpanBytes();
    int64_t leading = 16 >> 4;
    if (op.getMnMajor())
      leading =
          (op.getBuffer().getType().getShape().take_back(2)[0] * span) >> 4;
    int64_t stride = (8 * span) >> 4;
    // Row groups (T-WGMMA-6): the 8-row groups are the dimension before
    // the chunks.
    if (op.getRowGroups())
      stride = getRowGroupStrideBytes(op.getBuffer().getType()) >> 4;
    // The low word (start address, leading byte offset) in 32-bit
    // arithmetic, where the descriptors of one tile's K steps differ by a
    // constant; the high word (stride byte offset, layout) is a constant.
    Type i32 = rewriter.getI32Type();
    Value low = LLVM::AddOp::create(
        rewriter, loc, start,
        LLVM::ConstantOp::create(rewriter, loc, i32, leading << 16));
    int64_t high = stride | (getLayoutType(*swizzle.getTmaMode()) << 30);
    rewriter.replaceOpWithNewOp<LLVM::OrOp>(
        op, LLVM::ZExtOp::create(rewriter, loc, i64, low),
        constant(high << 32));
    return success();
  }

  /// The descriptor's start address field, as an i32: the PTX ISA's
  /// encode(x) = (x & 0x3FFFF) >> 4 (wgmma's "Matrix Descriptor Format"), so
  /// that no higher bit of a shared address (a CTA in a cluster has its rank
  /// at bit 24) reaches the leading byte offset at bit 16. A verified tile
  /// (T-WGMMA-1) has an identity layout whose rows are one swizzle span and
  /// a 16-byte aligned base, so it is encode(base) + sum(index * stride
  /// bytes / 16) + innermost index * element bytes / 16, with no carry out
  /// of the 14 bits (the CTA's shared memory is under 2^18 bytes): 32-bit
  /// arithmetic in which the K steps of a tile differ by constants.
  Value getStartAddress(WgmmaDescriptorOp op, OpAdaptor adaptor,
                        ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    MemRefType type = op.getBuffer().getType();
    Type i32 = rewriter.getI32Type();
    auto constant = [&](int64_t value) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i32, value);
    };
    auto toI32 = [&](Value value) -> Value {
      if (value.getType() == i32)
        return value;
      return LLVM::TruncOp::create(rewriter, loc, i32, value);
    };
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    SmallVector<int64_t> strides = type.getStridesAndOffset().first;
    SmallVector<Value> zeros(
        type.getRank(),
        LLVM::ConstantOp::create(rewriter, loc,
                                 adaptor.getIndices()[0].getType(), 0));
    Value base =
        getStridedElementPtr(rewriter, loc, type, adaptor.getBuffer(), zeros);
    Value start = LLVM::LShrOp::create(
        rewriter, loc,
        LLVM::AndOp::create(rewriter, loc,
                            LLVM::PtrToIntOp::create(rewriter, loc, i32, base),
                            constant(kWgmmaAddressMask)),
        constant(4));
    ValueRange indices = adaptor.getIndices();
    for (auto [index, stride] :
         llvm::zip(indices.drop_back(), ArrayRef(strides).drop_back()))
      start = LLVM::AddOp::create(
          rewriter, loc, start,
          LLVM::MulOp::create(rewriter, loc, toI32(index),
                              constant(stride * elementBytes / 16)));
    // The innermost index in 16-byte units: index / (16 / element bytes).
    Value inner =
        LLVM::LShrOp::create(rewriter, loc, toI32(indices.back()),
                             constant(llvm::Log2_64(16 / elementBytes)));
    return LLVM::AddOp::create(rewriter, loc, start, inner);
  }
};

/// An i64 constant that names a vector element.
Value elementIndex(OpBuilder &builder, Location loc, int64_t i) {
  return LLVM::ConstantOp::create(builder, loc, builder.getI64Type(), i);
}

/// The registers wgmma holds accumulators `acc` (an LLVM vector of N/2 f32
/// or f16) in: one f32 each, or two f16 each as a vector<2xf16>.
SmallVector<Value> getAccumulatorRegisters(OpBuilder &builder, Location loc,
                                           Value acc) {
  auto type = cast<VectorType>(acc.getType());
  bool f16 = type.getElementType().isF16();
  auto pairType = VectorType::get({2}, builder.getF16Type());
  SmallVector<Value> registers;
  for (int64_t r = 0; r < type.getNumElements() / (f16 ? 2 : 1); ++r) {
    if (!f16) {
      registers.push_back(LLVM::ExtractElementOp::create(
          builder, loc, acc, elementIndex(builder, loc, r)));
      continue;
    }
    Value pair = LLVM::UndefOp::create(builder, loc, pairType);
    for (int64_t h = 0; h < 2; ++h)
      pair = LLVM::InsertElementOp::create(
          builder, loc, pair,
          LLVM::ExtractElementOp::create(builder, loc, acc,
                                         elementIndex(builder, loc, 2 * r + h)),
          elementIndex(builder, loc, h));
    registers.push_back(pair);
  }
  return registers;
}

/// The accumulator vector of `type` (N/2 f32 or f16) from wgmma's
/// registers (the inverse of getAccumulatorRegisters).
Value getAccumulatorVector(OpBuilder &builder, Location loc, Type type,
                           ArrayRef<Value> registers) {
  bool f16 = cast<VectorType>(type).getElementType().isF16();
  Value vector = LLVM::UndefOp::create(builder, loc, type);
  for (auto [r, reg] : llvm::enumerate(registers))
    for (int64_t h = 0; h < (f16 ? 2 : 1); ++h)
      vector = LLVM::InsertElementOp::create(
          builder, loc, vector,
          f16 ? Value(LLVM::ExtractElementOp::create(
                    builder, loc, reg, elementIndex(builder, loc, h)))
              : reg,
          elementIndex(builder, loc, (f16 ? 2 : 1) * int64_t(r) + h));
  return vector;
}

/// The accumulator registers of `acc` as inline-asm operands: f32 each
/// ("f"), or each f16 pair as one .b32 ("r").
SmallVector<Value> getAsmAccumulatorOperands(OpBuilder &builder, Location loc,
                                             Value acc) {
  bool f16 = cast<VectorType>(acc.getType()).getElementType().isF16();
  SmallVector<Value> operands;
  for (Value reg : getAccumulatorRegisters(builder, loc, acc))
    operands.push_back(f16 ? Value(LLVM::BitcastOp::create(
                                 builder, loc, builder.getI32Type(), reg))
                           : reg);
  return operands;
}

/// The accumulator vector of `type` from the first `count` results of an
/// inline-asm statement whose outputs are its registers (the inverse of
/// getAsmAccumulatorOperands).
Value getAccumulatorVectorFromAsm(OpBuilder &builder, Location loc, Type type,
                                  Value results, int64_t count) {
  bool f16 = cast<VectorType>(type).getElementType().isF16();
  auto pairType = VectorType::get({2}, builder.getF16Type());
  SmallVector<Value> registers;
  for (int64_t r = 0; r < count; ++r) {
    Value reg = LLVM::ExtractValueOp::create(builder, loc, results,
                                             ArrayRef<int64_t>{r});
    registers.push_back(
        f16 ? Value(LLVM::BitcastOp::create(builder, loc, pairType, reg))
            : reg);
  }
  return getAccumulatorVector(builder, loc, type, registers);
}

/// An inline-asm statement with side effects whose outputs $0 .. $R-1 are
/// the `registers` registers of an accumulator vector of `type` (f32 each,
/// or f16 pairs as .b32), its inputs `operands` under `inputConstraints`
/// (each preceded by a comma): that vector.
Value createAccumulatorAsm(OpBuilder &builder, Location loc, Type type,
                           ValueRange operands, StringRef ptx,
                           StringRef inputConstraints, int64_t registers) {
  bool f16 = cast<VectorType>(type).getElementType().isF16();
  Type registerType =
      f16 ? Type(builder.getI32Type()) : Type(builder.getF32Type());
  std::string constraints;
  llvm::raw_string_ostream cs(constraints);
  for (int64_t r = 0; r < registers; ++r)
    cs << (r ? "," : "") << (f16 ? "=r" : "=f");
  cs << inputConstraints;
  auto structType = LLVM::LLVMStructType::getLiteral(
      builder.getContext(), SmallVector<Type>(registers, registerType));
  auto asmOp = LLVM::InlineAsmOp::create(
      builder, loc, structType, operands, ptx, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(builder.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return getAccumulatorVectorFromAsm(builder, loc, type, asmOp.getRes(),
                                     registers);
}

struct WgmmaOpLowering : ConvertOpToLLVMPattern<WgmmaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WgmmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    // The accumulator registers: one f32 each, or two f16 (f16x2) each.
    int64_t count = op.getAcc().getType().getNumElements();
    bool f16 = op.getAcc().getType().getElementType().isF16();
    int64_t registers = count / (f16 ? 2 : 1);
    Type registerType = f16 ? Type(VectorType::get({2}, rewriter.getF16Type()))
                            : Type(rewriter.getF32Type());
    auto structType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(registers, registerType));
    // The accumulator vector as the struct of registers the op updates. A
    // zero accumulator is not materialized: wgmma's scale-d = 0 (PTX ISA,
    // "wgmma.mma_async": D = A * B) ignores the registers' values, so a
    // fresh product (a promoted K block, an attention score tile) costs no
    // register moves.
    bool zeroAcc = matchPattern(op.getAcc(), m_AnyZeroFloat());
    Value inouts = LLVM::UndefOp::create(rewriter, loc, structType);
    if (!zeroAcc)
      for (auto [r, reg] : llvm::enumerate(
               getAccumulatorRegisters(rewriter, loc, adaptor.getAcc())))
        inouts = LLVM::InsertValueOp::create(rewriter, loc, inouts, reg,
                                             ArrayRef<int64_t>{int64_t(r)});
    auto typeA =
        NVVM::WGMMATypesAttr::get(ctx, getWgmmaType(op.getInputType()));
    auto typeB = NVVM::WGMMATypesAttr::get(ctx, getWgmmaType(op.getTypeB()));
    int64_t k = *getWgmmaInstructionK(op.getInputType(), op.getTypeB());
    auto scaleIn = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
    // A K-major ("row" in PTX's terms) or, with transpose_a, MN-major
    // ("col": imm-trans-a = 1); B K-major ("col") or, with transpose_b,
    // MN-major ("row": imm-trans-b = 1).
    Value result = NVVM::WgmmaMmaAsyncOp::create(
        rewriter, loc, structType, inouts, adaptor.getDescA(),
        adaptor.getDescB(), NVVM::MMAShapeAttr::get(ctx, 64, op.getN(), k),
        typeA, typeB,
        NVVM::WGMMATypesAttr::get(ctx, f16 ? NVVM::WGMMATypes::f16
                                           : NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, zeroAcc ? NVVM::WGMMAScaleOut::zero
                                                  : NVVM::WGMMAScaleOut::one),
        scaleIn, scaleIn,
        NVVM::MMALayoutAttr::get(ctx, op.getTransposeA()
                                          ? NVVM::MMALayout::col
                                          : NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, op.getTransposeB()
                                          ? NVVM::MMALayout::row
                                          : NVVM::MMALayout::col),
        NVVM::MMAIntOverflowAttr());
    SmallVector<Value> results;
    for (int64_t r = 0; r < registers; ++r)
      results.push_back(LLVM::ExtractValueOp::create(rewriter, loc, result,
                                                     ArrayRef<int64_t>{r}));
    Value vector = getAccumulatorVector(
        rewriter, loc,
        getTypeConverter()->convertType(op.getResult().getType()), results);
    rewriter.replaceOp(op, vector);
    return success();
  }
};

/// Lowers `tile.wgmma_rs` to inline PTX (no NVVM op takes A from
/// registers; PTX ISA, "wgmma.mma_async", the form with `a` a vector of
/// four .b32 registers): the accumulators are outputs tied to their inputs
/// (none for a constant zero, which is scale-d = 0), A's 8 16-bit elements
/// (or 16 8-bit floats) four packed registers, B the descriptor.
struct WgmmaRsOpLowering : ConvertOpToLLVMPattern<WgmmaRsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WgmmaRsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    // The accumulators as registers: f32, or f16x2 packed into a .b32.
    int64_t count = op.getAcc().getType().getNumElements();
    bool f16 = op.getAcc().getType().getElementType().isF16();
    int64_t registers = count / (f16 ? 2 : 1);
    bool zeroAcc = matchPattern(op.getAcc(), m_AnyZeroFloat());
    SmallVector<Value> operands;
    Value a = LLVM::BitcastOp::create(rewriter, loc, VectorType::get({4}, i32),
                                      adaptor.getA());
    for (int64_t r = 0; r < 4; ++r)
      operands.push_back(LLVM::ExtractElementOp::create(
          rewriter, loc, a, elementIndex(rewriter, loc, r)));
    operands.push_back(adaptor.getDescB());
    if (!zeroAcc)
      llvm::append_range(
          operands, getAsmAccumulatorOperands(rewriter, loc, adaptor.getAcc()));
    // $0 .. $R-1 the accumulators, then a0..a3, the descriptor, and the
    // accumulator inputs tied to the outputs.
    std::string ptx;
    llvm::raw_string_ostream os(ptx);
    Type input = op.getA().getType().getElementType();
    std::string element = NVVM::stringifyWGMMATypes(getWgmmaType(input)).str();
    bool fp8 = isWgmmaFp8(input);
    os << "{\n.reg .pred p;\nsetp.ne.b32 p, " << (zeroAcc ? 0 : 1)
       << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << op.getN() << "k"
       << *getWgmmaInstructionK(input, input) << "." << (f16 ? "f16" : "f32")
       << "." << element << "." << element << " {";
    for (int64_t r = 0; r < registers; ++r)
      os << (r ? ", $" : "$") << r;
    os << "}, {$" << registers << ", $" << registers + 1 << ", $"
       << registers + 2 << ", $" << registers + 3 << "}, $" << registers + 4
       << ", p, 1, 1";
    // 8-bit floats have no transpose operand (K-major only).
    if (!fp8)
      os << ", " << (op.getTransposeB() ? 1 : 0);
    os << ";\n}";
    std::string inputs;
    llvm::raw_string_ostream cs(inputs);
    cs << ",r,r,r,r,l";
    for (int64_t r = 0; r < (zeroAcc ? 0 : registers); ++r)
      cs << "," << r;
    rewriter.replaceOp(
        op, createAccumulatorAsm(
                rewriter, loc,
                getTypeConverter()->convertType(op.getResult().getType()),
                operands, ptx, inputs, registers));
    return success();
  }
};

struct WgmmaFenceOpLowering : ConvertOpToLLVMPattern<WgmmaFenceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WgmmaFenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaFenceAlignedOp>(op);
    return success();
  }
};

struct WgmmaCommitGroupOpLowering : ConvertOpToLLVMPattern<WgmmaCommitGroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WgmmaCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaGroupSyncAlignedOp>(op);
    return success();
  }
};

struct WgmmaWaitGroupOpLowering : ConvertOpToLLVMPattern<WgmmaWaitGroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WgmmaWaitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(op,
                                                            op.getPending());
    return success();
  }
};

/// Lowers `tile.wgmma_fence_operand` to an empty inline-asm statement with
/// side effects whose outputs are its inputs' registers (tied): LLVM keeps
/// it in order with the wgmmas' side effects, and the computation of the
/// value before it (CUTLASS's warpgroup_fence_operand).
struct WgmmaFenceOperandOpLowering
    : ConvertOpToLLVMPattern<WgmmaFenceOperandOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(WgmmaFenceOperandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> operands =
        getAsmAccumulatorOperands(rewriter, loc, adaptor.getValue());
    // Each output tied to its input.
    std::string inputs;
    llvm::raw_string_ostream cs(inputs);
    for (size_t r = 0; r < operands.size(); ++r)
      cs << "," << r;
    rewriter.replaceOp(
        op, createAccumulatorAsm(
                rewriter, loc,
                getTypeConverter()->convertType(op.getResult().getType()),
                operands, /*ptx=*/"", inputs, operands.size()));
    return success();
  }
};

} // namespace

void tile::populateWgmmaToNVVMPatterns(const LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<WgmmaDescriptorOpLowering, WgmmaOpLowering, WgmmaRsOpLowering,
               WgmmaFenceOpLowering, WgmmaCommitGroupOpLowering,
               WgmmaWaitGroupOpLowering, WgmmaFenceOperandOpLowering>(converter);
}
