//===- ClusterOps.cpp - Verifiers of the cluster ops ----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::tile;

bool ClusterCtaRankOp::requiresClusterLaunch() { return true; }
bool ClusterSizeOp::requiresClusterLaunch() { return true; }
bool ClusterArriveOp::requiresClusterLaunch() { return true; }
bool ClusterWaitOp::requiresClusterLaunch() { return true; }
bool ClusterMapSharedOp::requiresClusterLaunch() { return true; }
bool MBarrierArriveRemoteOp::requiresClusterLaunch() { return true; }

LogicalResult ClusterMapSharedOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto result = cast<MemRefType>(getResult().getType());
  // T-CLUSTER-2: mapa maps shared::cta to shared::cluster, same buffer shape.
  if (!isSharedMemory(source))
    return emitOpError() << "expected a shared-memory source, got " << source
                         << " (T-CLUSTER-2)";
  auto space = dyn_cast_or_null<IntegerAttr>(result.getMemorySpace());
  if (!space || space.getInt() != kSharedClusterAddressSpace)
    return emitOpError() << "expected a result in shared::cluster memory "
                            "(address space 7), got "
                         << result << " (T-CLUSTER-2)";
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType() ||
      source.getLayout() != result.getLayout())
    return emitOpError() << "expected the result to view the source's buffer "
                            "(same shape, element type and layout), got "
                         << source << " and " << result << " (T-CLUSTER-2)";
  return success();
}

LogicalResult MBarrierArriveRemoteOp::verify() {
  // T-MBAR-6 is the lowering's: the arrival orders memory at the group's
  // scope.
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}
