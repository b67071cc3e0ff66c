// The split-KV attention kernels of python/tile/ops/decode_attention.py as
// PTX, assembled by ptxas: K and V blocks of 128 keys by 4-D TMA boxes (one
// per 64-wide chunk of a contiguous cache or 128-token pages; two row-range
// boxes of a 64-token page per chunk, T-TMA-24) or, for pages of 16 and 32
// tokens, by cp.async gathers (each producer thread 16-byte pieces of rows,
// a warp's pieces whole rows, completed on the full barrier by
// cp.async.mbarrier.arrive.noinc; the consumer fences the proxies before
// its wgmma), Q rows loaded 16 bytes at a time and stored swizzled, S = Q
// K^T from two shared-memory descriptors and O += P V with P in registers
// (m64n128k16 for D = 128, m64n64k16 P V for D = 64) by two consumer
// warpgroups taking the blocks in turn, the second's rows handed to the
// first through shared memory (16-byte stores, named barrier 12 across
// both), the log2-sum-exp of each row, and the combine's warp butterflies
// and shuffles of the split weights, by a unit's last split (an arrival
// counter between GPU-scope fences) or by the combine kernel.
// The protocol checker simulates the persistent producer and both
// consumers over five key blocks of one item (the two-stage ring wraps; the
// first consumer takes blocks 0, 2 and 4) clean, and reports a consumer
// that never releases its K stage (the producer deadlocks), one that reads
// V without waiting for it, a stage whose announced bytes are a box (8 KB)
// short of its boxes', and consumers that step one stage a block (or both
// start at the item's first block): one blocks on a stage that is never
// filled for it, and the other hangs at the merge barrier; over three
// items of five blocks (persistent: the stream's parity flips each item)
// clean, whether the CTA streams a range of units' blocks or takes split
// items in turn, and a block parity not carried from one item to the next
// reported the same way; gathering, a producer whose copies never arrive
// on K's full barrier (the consumer deadlocks), a consumer that reads K or
// V without waiting for the gathered stage, and one whose S wgmma may
// still read K when it releases the stage (the next gather overwrites it).
//
// RUN: %python -m tile attention-decode --page 128 > %t.p128.mlir
// RUN: tile-opt %t.p128.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.p128.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,TMA,D128 < %t.p128.ptx
// RUN: FileCheck %s --check-prefix=MERGE < %t.p128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.p128.ptx -o %t.p128.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-decode --page 64 > %t.p64.mlir
// RUN: tile-opt %t.p64.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.p64.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,TMA,D128 < %t.p64.ptx
// RUN: FileCheck %s --check-prefix=COPIES < %t.p64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.p64.ptx -o %t.p64.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-decode --page 16 --element f16 > %t.p16.mlir
// RUN: tile-opt %t.p16.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.p16.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,PAGE16 < %t.p16.ptx
// RUN: FileCheck %s --check-prefix=GATHER < %t.p16.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.p16.ptx -o %t.p16.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-decode --page 16 --boxes > %t.boxes.mlir
// RUN: tile-opt %t.boxes.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.boxes.ptx
// RUN: FileCheck %s --check-prefix=BOXES < %t.boxes.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.boxes.ptx -o %t.boxes.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-decode --head-dim 64 --page 32 > %t.d64.mlir
// RUN: tile-opt %t.d64.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.d64.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,D64 < %t.d64.ptx
// RUN: FileCheck %s --check-prefix=GATHER64 < %t.d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.d64.ptx -o %t.d64.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
//
// RUN: sed -e 's/%%blocks = arith.divui %%seqlen127, %%c128 : index/%%blocks = arith.constant 5 : index/' -e 's/%%j1_raw = arith.select %%stream, %%hi_s, %%j1_n : index/%%j1_raw = arith.constant 5 : index/' %t.p64.mlir > %t.wrap.mlir
// RUN: tile-opt %t.wrap.mlir -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLEAN --implicit-check-not=error: --implicit-check-not=warning:
// RUN: tile-opt %t.wrap.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLEAN --implicit-check-not=error: --implicit-check-not=warning:
// RUN: sed '/%%ktok = tile.mbarrier_arrive %%k_empty/d' %t.wrap.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-K-RELEASE
// RUN: sed '/tile.mbarrier_wait_parity %%v_full\[%%s\], %%ph : !bars/d' %t.wrap.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-V-WAIT
// RUN: sed 's/%%stage_bytes = arith.constant 32768 : i32/%%stage_bytes = arith.constant 24576 : i32/' %t.wrap.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHORT-STAGE
// RUN: sed 's/%%next = arith.addi %%s, %%c_consumers : index/%%next = arith.addi %%s, %%c1 : index/' %t.wrap.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONSUMER-STEP
// RUN: sed 's/%%j_mine = arith.addi %%j0, %%first_off : index/%%j_mine = arith.addi %%j0, %%c0 : index/' %t.wrap.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONSUMER-STEP
// RUN: sed 's/%%item_ub = arith.select %%stream, %%u_end, %%items : index/%%item_ub = arith.constant 3 : index/' %t.wrap.mlir > %t.items.mlir
// RUN: sed -e 's/%%items = arith.muli %%units, %%splits : index/%%items = arith.constant 3 : index/' -e '1,/@decode_attention_combine/s/arith.select %%stream,/arith.select %%false,/' %t.wrap.mlir > %t.split-items.mlir
// RUN: tile-opt %t.split-items.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLEAN --implicit-check-not=error: --implicit-check-not=warning:
// RUN: tile-opt %t.items.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLEAN --implicit-check-not=error: --implicit-check-not=warning:
// RUN: sed 's/%%par_next = arith.xori %%par0, %%n_odd : index/%%par_next = arith.xori %%par0, %%c0 : index/' %t.items.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONSUMER-STEP
// RUN: sed -e 's/%%blocks = arith.divui %%seqlen127, %%c128 : index/%%blocks = arith.constant 5 : index/' -e 's/%%j1_raw = arith.select %%stream, %%hi_s, %%j1_n : index/%%j1_raw = arith.constant 5 : index/' %t.p16.mlir > %t.gather.mlir
// RUN: tile-opt %t.gather.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLEAN --implicit-check-not=error: --implicit-check-not=warning:
// RUN: sed '/%%ktok = tile.mbarrier_arrive %%k_empty/d' %t.gather.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-K-RELEASE
// RUN: sed '/tile.async_copy_mbarrier_arrive %%k_full/d' %t.gather.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-K-ARRIVAL
// RUN: sed '/tile.mbarrier_wait_parity %%k_full\[%%s\], %%ph : !bars/d' %t.gather.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-WAIT-GATHERED
// RUN: sed '/tile.mbarrier_wait_parity %%v_full\[%%s\], %%ph : !bars/d' %t.gather.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-WAIT-GATHERED
// RUN: sed '0,/{shape = array<i64: 64, 128, 128>, wait = 0 : i32}/s//{shape = array<i64: 64, 128, 128>, wait = 1 : i32}/' %t.gather.mlir \
// RUN:   | not tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=GATHER-OVERWRITE

// NO-SPILLS-COUNT-2: bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry decode_attention_d
//  CHECK-NEXT: .param .u64 .ptr .align 1 decode_attention_d{{[0-9]+}}_p{{[0-9]+}}_param_0,
//     TMA-DAG: setmaxnreg.inc.sync.aligned.u32 240;
//  PAGE16-DAG: setmaxnreg.inc.sync.aligned.u32 224;
//     D64-DAG: setmaxnreg.inc.sync.aligned.u32 216;
//   CHECK-DAG: ld.global.v4.b32
//   CHECK-DAG: st.shared.v4.b32
//   CHECK-DAG: fence.proxy.async.shared::cta;
//   CHECK-DAG: bar.sync 9, 256;
//   CHECK-DAG: ex2.approx.ftz.f32
// D128-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// D128-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// PAGE16-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// D64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1, 1;

// The unit's last split combines (units of a few rows): the split's rows
// released before its arrival is counted and acquired after, the
// counter's last taker told by a shared flag, then the weights'
// butterflies and shuffles and the rows' 16-byte loads; the combine kernel
// does the same for the others.
//       CHECK: fence.acq_rel.gpu;
//       CHECK: atom.global.add.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], 1;
//  CHECK-NEXT: fence.acq_rel.gpu;
//       CHECK: st.shared.b32 [[[FLAG:__tile_shared_\$_[0-9]+]]], %r{{[0-9]+}};
//       CHECK: st.global.b32 [%rd{{[0-9]+}}], 0;
//       CHECK: bar.sync %r{{[0-9]+}}, 128;
//  CHECK-NEXT: ld.shared.b32 %r{{[0-9]+}}, [[[FLAG]]];
//   CHECK-DAG: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, -1;
//   CHECK-DAG: shfl.sync.idx.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, 31, -1;
//   CHECK-DAG: ld.global.v4.b32
// The producer's code follows the consumers'.
//     TMA-DAG: setmaxnreg.dec.sync.aligned.u32 24;
//  PAGE16-DAG: setmaxnreg.dec.sync.aligned.u32 56;
//     D64-DAG: setmaxnreg.dec.sync.aligned.u32 72;
//     TMA-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-LABEL: .visible .entry decode_attention_combine(
//   CHECK-DAG: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, -1;
//   CHECK-DAG: shfl.sync.idx.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, 31, -1;
//   CHECK-DAG: ex2.approx.ftz.f32
//   CHECK-DAG: ld.global.v4.b32
// The second consumer's rows to the first: m and l (8 bytes a thread),
// then its 64 accumulators in sixteen 16-byte stores (thread t's chunk i
// at (128 i + t) 16: no bank conflicts), loaded back the same way.
// MERGE-LABEL: .visible .entry decode_attention_d128_p128(
//       MERGE: bar.sync 12, 256;
//       MERGE: st.shared.v2.b32 [%r[[ML:[0-9]+]]], {
//  MERGE-NEXT: st.shared.v2.b32 [%r[[ML]]+1024], {
// MERGE-COUNT-16: st.shared.v4.b32 [%r{{[0-9]+}}+{{[0-9]+}}], {%r
//       MERGE: ld.shared.v2.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}}, [%r[[ML]]];
//  MERGE-NEXT: ld.shared.v2.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}}, [%r[[ML]]+1024];
// MERGE-COUNT-16: ld.shared.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%r{{[0-9]+}}+{{[0-9]+}}];
// A 64-token page: two boxes per 64-wide chunk, 8 KB apart in shared
// memory (64 rows of 128 bytes), after one arrival announcing the stage's
// 32 KB on its full barrier (K, then V).
// COPIES-LABEL: .visible .entry decode_attention_d128_p64(
// COPIES: mov.b32 [[BYTES:%r[0-9]+]], 32768;
// COPIES-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{%r[0-9]+}}], [[BYTES]];
// COPIES-COUNT-4: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// COPIES: mbarrier.arrive.expect_tx.shared.b64
// COPIES-COUNT-4: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// A 16-token page, gathered: the consumers' proxy fence after each full
// wait; no TMA; a producer thread's sixteen 16-byte pieces of K (zero
// bytes read from a page outside the cache), its arrival when they land,
// then V's (the producer's code follows the consumers').
// GATHER-LABEL: .visible .entry decode_attention_d128_p16(
//      GATHER: mbarrier.try_wait.parity
//      GATHER: fence.proxy.async.shared::cta;
//  GATHER-NEXT: wgmma.fence.sync.aligned;
//  GATHER-NOT: cp.async.bulk.tensor
// GATHER-COUNT-16: cp.async.cg.shared.global [%r{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
//      GATHER: cp.async.mbarrier.arrive.noinc.shared.b64 [%r{{[0-9]+}}];
// GATHER-COUNT-16: cp.async.cg.shared.global [%r{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
//      GATHER: cp.async.mbarrier.arrive.noinc.shared.b64 [%r{{[0-9]+}}];
//  GATHER-NOT: cp.async.bulk.tensor
// GATHER-LABEL: .visible .entry decode_attention_combine(
// A 16-token page by TMA boxes (a pool past 2^31 elements, which the
// gathers' 32-bit addresses do not reach): eight 16-row boxes a 64-wide
// chunk, the stage's 32 KB announced once; no cp.async; the producer at
// 56 registers for its eight page ids in flight.
// BOXES-LABEL: .visible .entry decode_attention_d128_p16_boxes(
//  BOXES-DAG: setmaxnreg.inc.sync.aligned.u32 224;
//  BOXES-DAG: setmaxnreg.dec.sync.aligned.u32 56;
//  BOXES-NOT: cp.async.cg
//      BOXES: mbarrier.arrive.expect_tx.shared.b64
// BOXES-COUNT-16: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//  BOXES-NOT: cp.async.cg
// BOXES-LABEL: .visible .entry decode_attention_combine(
// GATHER64-LABEL: .visible .entry decode_attention_d64_p32(
// GATHER64-COUNT-8: cp.async.cg.shared.global
//      GATHER64: cp.async.mbarrier.arrive.noinc.shared.b64

// CLEAN: remark: role protocol: {{[0-9]+}} roles {{.*}}from thread 256{{.*}}: nothing to report
// NO-K-RELEASE: error: waits for parity {{[01]}} of barrier {{[0-9]+}} {{.*}} which never completes: every role is blocked or done with 1 of 1 arrivals missing{{.*}}(T-PROTO-11)
// SHORT-STAGE: error: reads stage (0, 1) {{.*}}written by a copy that completes phase 1 of barrier 0, which has not completed{{.*}}(T-PROTO-12)
// NO-K-ARRIVAL: error: waits for parity {{[01]}} of barrier {{[0-9]+}} {{.*}} which never completes{{.*}}(T-PROTO-11)
// NO-WAIT-GATHERED: error: reads stage (0, 0) (thread 128) written by a copy that completes phase 0 of barrier 0, which this role never waited for{{.*}}(T-PROTO-12)
// NO-WAIT-GATHERED: note: the copy
// NO-WAIT-GATHERED-NEXT: tile.async_copy
// GATHER-OVERWRITE: error: overwrites stage (0, 0) while a wgmma of thread 128 may still read it{{.*}}(T-PROTO-12)
// GATHER-OVERWRITE-NEXT: tile.async_copy %k
// CONSUMER-STEP: error: waits at named barrier 12 (thread {{128|256}}) for 256 threads, of which 128 arrive: every role is blocked or done, a hang (T-PROTO-11)
// NO-V-WAIT: error: reads stage (0{{.*}}) {{.*}}which this role never waited for{{.*}}(T-PROTO-12)
