//===- StreamOrderHostLaunches.cpp - Host launches ordered on one stream --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// In each host func.func (a gpu.module's functions are not host code):
//  1. with a synchronous gpu.launch_func, `%s = gpu.wait async` at function
//     entry creates one stream;
//  2. each synchronous launch becomes `gpu.launch_func async [%s]` (token
//     unused): launches run in order on %s with no host wait in between;
//  3. where a launch may be pending, the host synchronizes %s before an op
//     that may observe memory a kernel uses: a GPU op other than such a
//     launch, an op that reads, writes or frees memory other than allocas
//     that no kernel sees or has unknown effects (func.call; not the
//     tensor-map encoders), a region op that contains one, and a
//     return, which also destroys %s. A synchronous memcpy, memset, alloc or
//     dealloc becomes the async op on a fresh stream, waited for right after
//     it: it keeps its synchronous meaning (and needs no dependency on %s,
//     which 3. synchronized);
//  4. "a launch may be pending" is a structured data flow over each block in
//     order: a launch sets it, a synchronization clears it; before a region
//     op it is cleared by a synchronization when the op contains an op of
//     3.; every region of a loop (and a non-entry block) starts with it set
//     when it was set on entry or the loop (region) has a launch; after a
//     region op it is set
//     when it was set on entry or on leaving one of its blocks. A loop with
//     no launch thus never gets a synchronization.
// Synchronizing and destroying %s are the runtime calls that gpu-to-llvm
// emits for streams (mgpuStreamSynchronize, mgpuStreamDestroy) on %s's
// pointer, not gpu.wait ops: gpu-to-llvm records the event of
// `gpu.wait async [%s]` right after %s's definition (before the launches),
// and the canonicalizer erases `gpu.wait [%s]`, since the token of a
// `gpu.wait async` without dependencies stands for no work. No token is
// carried through a loop (convert-nvgpu-to-nvvm rejects such loops).
//===----------------------------------------------------------------------===//

#include "Tile/TensorMap/TensorMapContract.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESTREAMORDERHOSTLAUNCHESPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

/// Whether `op` is a synchronous gpu.launch_func, which goes on the stream.
static bool isSyncLaunch(Operation *op) {
  auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
  return launch && !launch.getAsyncToken() &&
         launch.getAsyncDependencies().empty();
}

/// Whether `op` is a synchronous gpu.memcpy, memset, alloc or dealloc, which
/// becomes async on a stream of its own. A host-shared gpu.alloc stays: it has
/// no async form in gpu-to-llvm.
static bool isSyncTransfer(Operation *op) {
  if (!isa<gpu::MemcpyOp, gpu::MemsetOp, gpu::AllocOp, gpu::DeallocOp>(op))
    return false;
  if (auto alloc = dyn_cast<gpu::AllocOp>(op); alloc && alloc.getHostShared())
    return false;
  auto asyncOp = cast<gpu::AsyncOpInterface>(op);
  return !asyncOp.getAsyncToken() && asyncOp.getAsyncDependencies().empty();
}

/// Whether `value` addresses a stack allocation that no kernel can see: an
/// alloca (memref or LLVM, through views, casts and GEPs) that is not
/// registered with gpu.host_register.
static bool isPrivateAlloca(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto gep = dyn_cast<LLVM::GEPOp>(def))
      value = gep.getBase();
    else if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      value = view.getViewSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      value = cast.getSource();
    else
      break;
  }
  if (!value.getDefiningOp<memref::AllocaOp>() &&
      !value.getDefiningOp<LLVM::AllocaOp>())
    return false;
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    for (Operation *user : worklist.pop_back_val().getUsers()) {
      if (isa<gpu::HostRegisterOp>(user))
        return false;
      if (isa<ViewLikeOpInterface, memref::CastOp>(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  return true;
}

/// Whether `op` calls one of the tensor-map contract's encoders, which read
/// a memref descriptor and write a map into the host frame: nothing a
/// kernel uses.
static bool isTensorMapEncode(Operation *op) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  std::optional<StringRef> callee = call ? call.getCallee() : std::nullopt;
  return callee && (*callee == ::tile_tma::kEncodeTiledSymbol ||
                    *callee == ::tile_tma::kEncodeIm2colSymbol);
}

/// Whether `op` itself (not its regions) may observe memory that a kernel
/// uses: a GPU op other than a synchronous launch, or an op that reads,
/// writes or frees memory other than a private alloca, or whose effects are
/// unknown (except the tensor-map encoders).
static bool observesMemory(Operation *op) {
  if (isSyncLaunch(op) || isTensorMapEncode(op))
    return false;
  if (isa<gpu::AsyncOpInterface>(op))
    return true;
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](MemoryEffects::EffectInstance &instance) {
    if (isa<MemoryEffects::Allocate>(instance.getEffect()))
      return false;
    Value value = instance.getValue();
    return !value || !isPrivateAlloca(value);
  });
}

/// Whether `root` or an op nested in it satisfies `predicate`.
template <typename Root>
static bool containsOp(Root &root, function_ref<bool(Operation *)> predicate) {
  return root
      .walk([&](Operation *op) {
        return predicate(op) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Replaces the synchronous `op` by its async form that depends on
/// `dependency` and returns the new op's token.
static Value makeAsync(OpBuilder &builder, gpu::AsyncOpInterface op,
                       Value dependency) {
  op.addAsyncDependency(dependency);
  SmallVector<Type> resultTypes(op->getResultTypes());
  resultTypes.push_back(builder.getType<gpu::AsyncTokenType>());
  Operation *asyncOp = Operation::create(
      op->getLoc(), op->getName(), resultTypes, op->getOperands(),
      op->getDiscardableAttrDictionary(), op->getPropertiesStorage(),
      op->getSuccessors(), /*numRegions=*/0);
  builder.setInsertionPoint(op);
  builder.insert(asyncOp);
  op->replaceAllUsesWith(asyncOp->getResults().drop_back());
  op->erase();
  return asyncOp->getResults().back();
}

namespace {
/// The runtime functions on a stream pointer that gpu-to-llvm also uses.
struct StreamFunctions {
  LLVM::LLVMFuncOp synchronize;
  LLVM::LLVMFuncOp destroy;
};

/// Orders the synchronous launches of one host function on one stream.
class LaunchOrderer {
public:
  LaunchOrderer(MLIRContext *context, StreamFunctions functions)
      : builder(context), functions(functions) {}

  /// Creates the stream when `function` has a synchronous launch and
  /// rewrites the function.
  void run(func::FuncOp function) {
    if (containsOp(function, isSyncLaunch)) {
      Location loc = function.getLoc();
      builder.setInsertionPointToStart(&function.front());
      stream = createStream(loc);
      streamPointer =
          UnrealizedConversionCastOp::create(
              builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
              stream)
              .getResult(0);
    }
    processRegion(function.getBody(), /*pending=*/false, /*loops=*/false);
  }

private:
  OpBuilder builder;
  StreamFunctions functions;
  /// The stream of the launches and its pointer; null without launches.
  Value stream;
  Value streamPointer;

  /// `gpu.wait async`: a new stream.
  Value createStream(Location loc) {
    return gpu::WaitOp::create(builder, loc,
                               builder.getType<gpu::AsyncTokenType>(),
                               ValueRange())
        .getAsyncToken();
  }

  /// Calls `function` on the stream pointer before `op`.
  void callBefore(Operation *op, LLVM::LLVMFuncOp function) {
    builder.setInsertionPoint(op);
    LLVM::CallOp::create(builder, op->getLoc(), function, streamPointer);
  }

  /// Processes the blocks of `region`, entered with `pending`; `loops` says
  /// that its entry block may follow its own end. Returns whether a launch may
  /// be pending when control leaves the region.
  bool processRegion(Region &region, bool pending, bool loops) {
    bool hasLaunch = containsOp(region, isSyncLaunch);
    bool exitPending = false;
    for (Block &block : region) {
      bool repeats = loops || !block.isEntryBlock();
      exitPending |= processBlock(block, pending || (repeats && hasLaunch));
    }
    return exitPending;
  }

  /// Processes the ops of `block` in order, entered with `pending`; returns
  /// whether a launch may be pending at its end.
  bool processBlock(Block &block, bool pending) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isSyncLaunch(&op)) {
        makeAsync(builder, cast<gpu::AsyncOpInterface>(op), stream);
        pending = true;
        continue;
      }
      bool isReturn = isa<func::ReturnOp>(op);
      if (pending && (isReturn || containsOp(op, observesMemory))) {
        callBefore(&op, functions.synchronize);
        pending = false;
      }
      if (isReturn && stream) {
        callBefore(&op, functions.destroy);
      } else if (isSyncTransfer(&op)) {
        Location loc = op.getLoc();
        builder.setInsertionPoint(&op);
        Value done = makeAsync(builder, cast<gpu::AsyncOpInterface>(op),
                               createStream(loc));
        builder.setInsertionPointAfterValue(done);
        gpu::WaitOp::create(builder, loc, Type(), done);
      } else if (op.getNumRegions() && !isa<gpu::AsyncOpInterface>(op)) {
        // In a loop every region may run after a launch in any of its
        // regions in an earlier iteration (scf.while's condition after its
        // body).
        bool loops = isa<LoopLikeOpInterface>(op);
        bool entry = pending || (loops && containsOp(op, isSyncLaunch));
        bool exitPending = false;
        for (Region &region : op.getRegions())
          exitPending |= processRegion(region, entry, loops);
        pending |= exitPending;
      }
    }
    return pending;
  }
};
} // namespace

/// Orders the synchronous launches of each host function of `module`;
/// fails when a stream function is declared with another type.
static LogicalResult streamOrderHostLaunches(ModuleOp module) {
  auto functions = module.getOps<func::FuncOp>();
  StreamFunctions streamFunctions;
  if (llvm::any_of(functions, [](func::FuncOp function) {
        return containsOp(function, isSyncLaunch);
      })) {
    OpBuilder builder(module.getContext());
    Type pointer = LLVM::LLVMPointerType::get(module.getContext());
    Type voidType = LLVM::LLVMVoidType::get(module.getContext());
    FailureOr<LLVM::LLVMFuncOp> synchronize = LLVM::lookupOrCreateFn(
        builder, module, "mgpuStreamSynchronize", pointer, voidType);
    FailureOr<LLVM::LLVMFuncOp> destroy = LLVM::lookupOrCreateFn(
        builder, module, "mgpuStreamDestroy", pointer, voidType);
    if (failed(synchronize) || failed(destroy))
      return failure();
    streamFunctions = {*synchronize, *destroy};
  }
  for (func::FuncOp function : functions)
    LaunchOrderer(module.getContext(), streamFunctions).run(function);
  return success();
}

namespace {
/// Pass shell around streamOrderHostLaunches.
struct TileStreamOrderHostLaunchesPass
    : mlir::tile::impl::TileStreamOrderHostLaunchesPassBase<
          TileStreamOrderHostLaunchesPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(streamOrderHostLaunches(getOperation())))
      signalPassFailure();
  }
};
} // namespace
