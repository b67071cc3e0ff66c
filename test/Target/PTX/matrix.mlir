// The warp-level matrix ops as PTX, assembled by ptxas: the ldmatrix x4/x2
// + mma.sync m16n8k16 + stmatrix kernel of Integration/GPU/mma-sync.mlir,
// and setmaxnreg, which needs the arch-specific sm_90a.
//
// RUN: tile-opt %S/../../Integration/GPU/mma-sync.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ws.ptx
// RUN: FileCheck %s --check-prefix=WS < %t.ws.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ws.ptx -o %t.ws.cubin %}
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not tile-opt %S/../../Integration/GPU/mma-sync.mlir --tile-check-target="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=SM75

// CHECK-LABEL: .visible .entry mma(
//       CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%r{{d?[0-9]+}}];
//       CHECK: ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}}, [%r{{d?[0-9]+}}];
//       CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
//       CHECK: stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r{{d?[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};

// WS-LABEL: .visible .entry warp_specialized(
//       WS: setmaxnreg.dec.sync.aligned.u32 40;
//       WS: setmaxnreg.inc.sync.aligned.u32 232;

// SM90: error: 'tile.setmaxnreg' op requires an arch-specific target such as sm_90a, got sm_90 (T-TARGET-3)
// SM75: error: 'tile.mma_sync' op requires sm_80 or newer, but the target chip is sm_75 (T-TARGET-3)
gpu.module @kernels {
  gpu.func @warp_specialized() kernel {
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %producer = arith.cmpi ult, %tid, %c128 : index
    scf.if %producer {
      tile.setmaxnreg dec 40
    } else {
      tile.setmaxnreg inc 232
    }
    gpu.return
  }
}
