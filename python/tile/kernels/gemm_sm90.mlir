// The Hopper GEMM in tile IR (sm_90a): C = A B^T (@gemm_nt; A M x K, B
// N x K) and C = A B (@gemm_nn; B K x N), all row-major, f16 in, f32
// accumulation, f16 out. A warp-specialized kernel (tile.warp_specialize:
// one TMA producer warpgroup at 40 registers, of which one thread issues
// the copies; two wgmma consumer warpgroups at 232), a 4-stage full/empty
// mbarrier ring of 128B-swizzled tiles, tile.warpgroup_mma (m64n256k16,
// wait depth 1; B MN-major for A B) and an epilogue (the fused bias,
// activation or gate and residual its aliases name: tile.warpgroup_add,
// tile.warpgroup_activation) through shared memory
// (tile.warpgroup_tma_store: stmatrix into two 64x64 staging buffers per
// warpgroup, three for 192-wide tiles and one for 64-wide ones; 64x32
// chunks for widths no multiple of 64; TMA stores that overlap the next
// tile's MMAs); 224 KB of dynamic shared memory, 128x256x64 CTA tiles (as
// written; 128x192 with 4 stages, 128x128 with 6, 128x64 with 8, or the
// widths that fit the waves, 224, 160 and 96, by the tile-width aliases
// below) in a grouped order, a
// persistent grid (one CTA per SM) that splits the tiles of a mostly idle
// last wave along K. With #pingpong (128- and 64-wide tiles) the consumer
// warpgroups take every other tile instead, all 128 rows of it, their main
// loops in turns (named barriers 9 and 10), so that one's epilogue runs
// under the other's MMAs. (For M <= 96, and up to 128 where they are estimated
// faster, tile.matmul runs the
// decode kernels of python/tile/ops/decode.py instead.) Any M, N and K with
// K a multiple of 8, and N too for @gemm_nn's B (TMA reads 16-byte aligned
// rows): TMA fills zeros beyond A and B and clips the stores to C (or, where
// C's rows are not TMA's to write, #tma_c false stores it directly).
//
//   tile-opt python/tile/kernels/gemm_sm90.mlir --tile-to-ptx-pipeline="chip=sm_90a"
//   tile-run python/tile/kernels/gemm_sm90.mlir --chip=sm_90a
// prints the mismatches against the host (all 0) for both layouts at
// 256x512x512 and at the odd 200x296x200, and A B^T at 13x304x200.

// The element type of A, B and C (f16 or bf16); tile.matmul compiles its
// variants by redefining this alias.
!e = f16
!da = !tile.tma_desc<memref<?x?x!e>, box = [128, 64], swizzle = b128>
!dbt = !tile.tma_desc<memref<?x?x!e>, box = [64, 64], swizzle = b128>
// C's element type (!ce), its 64-column TMA chunks (!dc; 32-column ones
// where the tile's output width is no multiple of 64) and their swizzle
// (#c_swizzle: the chunk's row bytes, tile.ops.persistent.chunk_swizzle):
// !e and 128 B as written; an FP8 C (tile.ops.epilogue's `out`) has rows
// half as long. With #quantize, C =
// fp8(scale * epilogue) with scale = %scale[0], clamped to the format's
// largest magnitude (#c_max) first where #saturate, and the largest
// magnitude of the epilogue's values before the scale raises %amax[0]
// (its f32 bits as a signed integer: redux.sync and an atomic max, once
// per warp; non-negative floats order as their bits do).
!ce = !e
!dc = !tile.tma_desc<memref<?x?x!ce>, box = [64, 64], swizzle = b128>
#c_swizzle = #tile.swizzle<b128>
// How C is written: by TMA from the staging buffers (true, as written:
// C's rows must start 16-byte aligned, T-TMA-9/10), or, where they do not
// (an odd N, say), into %c_rows (M x C's columns) by the warpgroup's own
// stores from the same buffers (tile.warpgroup_coalesced_store: each warp a
// row at a time, a lane a column). tile.matmul compiles the second by
// redefining it (tile.ops.epilogue.epilogue_aliases).
#tma_c = true
!c_rows = memref<?x?x!ce, strided<[?, 1], offset: ?>>
#quantize = false
#saturate = false
#c_max = 448.0 : f32
// The ring's stages: 4 as written (224 KB with 256-wide tiles); other
// widths take as many as fit beside their staging buffers
// (tile.ops.persistent.RING_STAGES).
#stages = 4 : index
!bars = !tile.mbarrier<count = 4>
!ring_a = memref<4x128x64x!e, 3>
// The CTA tile's width N: 256 as written; tile.matmul compiles 224-, 192-,
// 160-, 128-, 96- and 64-wide tiles (where tile.ops.persistent.tile_width
// estimates them faster: N = 576, waves that fit the SMs better, a few row
// tiles of a long K) by redefining
// these aliases (tile.ops.matmul.tile_width_aliases). B's box and ring
// stage (N x 64; for A B, N / W chunks of 64 x W: W = 64, one 128-byte
// swizzle span, or 32 in 64-byte spans where N is no multiple of 64), a
// consumer thread's accumulators (!acc: 64 x N / 128) and the wgmma and
// store shapes.
#tile_n = 256 : index
#tile_n_1 = 255 : index
#b_chunks = 4 : index
#b_chunk = 64 : index
#bt_swizzle = #tile.swizzle<b128>
#nn_copies = 5 : i32
!db = !tile.tma_desc<memref<?x?x!e>, box = [256, 64], swizzle = b128>
!ring_b = memref<4x256x64x!e, 3>
!ring_bt = memref<4x4x64x64x!e, 3>
!acc = vector<128xf32>
#mma = array<i64: 64, 256, 64>
#half_tile = array<i64: 64, 256>
// Split tiles' partial sums: 128 rows of a column per accumulator a slot,
// a slot per split (at least two) of each 64 x N half tile (one per
// consumer warpgroup; with #pingpong, of the one warpgroup's 128 x N tile);
// and the arrival counters of the half tiles (tile.split_k_reduce,
// T-TILE-6).
!workspace = memref<?x128xf32>
!counters = memref<?xi32>
// The fused epilogue, as written none (its ops fold away): C = act(A B +
// bias) + residual, or gated (the 8-column blocks of B's rows, or of its
// columns for A B, alternate gate and up: C = act(gate) * up + residual,
// N / 2 columns). tile.matmul compiles its epilogues by redefining these
// aliases (tile.ops.epilogue.epilogue_aliases): whether a bias and a
// residual are read, the activation, whether gated, C's columns per
// column of B (#out_div), a thread's output accumulators and their tile
// (!out, #out_tile: 64 x N / #out_div), and the staging ring of its TMA
// chunks (tile.ops.persistent.staging_buffers: a call's chunks are a
// multiple of its buffers, T-TILE-4).
#bias = false
#residual = false
#activation = #tile.activation<identity>
#gated = false
#out_div = 1 : index
!out = vector<128xf32>
#out_tile = array<i64: 64, 256>
!staging = memref<2x2x64x64x!ce, 3>
// Ping-pong consumers (CUTLASS's KernelTmaWarpSpecializedPingpong), false
// as written: each consumer warpgroup takes every other work unit, all 128
// rows of its tile, so one's epilogue runs under the other's MMAs; the
// ring's stages then have one consumer each. tile.matmul compiles it by
// redefining this and the tile shapes above for 128 rows a warpgroup
// (tile.ops.matmul.pingpong_aliases).
#pingpong = false
// A bias is an M x N view of its vector: strides [0, 1] per column (of B's
// N), [1, 0] per row; the residual is M x (N / #out_div) with unit column
// stride.
!bias = memref<?x?x!e, strided<[?, ?], offset: ?>>
!residual = memref<?x?x!e, strided<[?, 1], offset: ?>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // C (M x N) = A (M x K) * B (N x K)^T, persistent: CTA b takes its work
    // units (tile.work_unit split_k): tiles b, b + grid, ... of the 128x256
    // tiles, whole, and where the last wave would leave half the CTAs idle,
    // one of the equal K ranges that wave's tiles are split into, which
    // tile.split_k_reduce sums; tiles in grouped order (tile.tile_coord, 4
    // row tiles per group, for L2 reuse). Warpgroup 0 (one thread of it) loads the A
    // and B K-slices of its tiles with TMA into a 4-stage ring (full
    // barriers: the two copies' bytes; empty barriers: one arrival per
    // consumer warpgroup), running ahead into the next tile while the
    // consumers store the last one; warpgroups 1 and 2 each multiply their
    // 64 rows with wgmma m64n256k16 (wait depth 1: a stage is released once
    // the next stage's wgmmas are issued) and store their 64x256 part. The
    // ring state (stage, phase) carries over from tile to tile. With
    // #pingpong, each consumer warpgroup takes every other unit whole
    // (all 128 rows, the one arrival on its stages' empty barriers) and
    // passes the other's stages by, the main loops in turns.
    gpu.func @gemm_nt(%a: !da, %b: !db, %c: !dc, %m: index, %n: index, %k: index,
                      %ws: !workspace, %counters: !counters, %bias: !bias,
                      %residual: !residual, %scale: memref<?xf32>,
                      %amax: memref<?xi32>, %c_rows: !c_rows) kernel
        attributes {known_block_size = array<i32: 384, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c_stages = arith.constant #stages
      %c2 = arith.constant 2 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %c_tile_n_1 = arith.constant #tile_n_1
      %c_tile_n = arith.constant #tile_n
      %c_out_div = arith.constant #out_div
      %copies = arith.constant 2 : i32
      %pingpong = arith.constant #pingpong
      %one_consumer = arith.constant 1 : i32
      %both_consumers = arith.constant 2 : i32
      %consumers = arith.select %pingpong, %one_consumer, %both_consumers : i32
      %false = arith.constant false
      %true = arith.constant true
      %tid = gpu.thread_id x
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %m127 = arith.addi %m, %c127 : index
      %tiles_m = arith.divui %m127, %c128 : index
      %n255 = arith.addi %n, %c_tile_n_1 : index
      %tiles_n = arith.divui %n255, %c_tile_n : index
      %tiles = arith.muli %tiles_m, %tiles_n : index
      %k63 = arith.addi %k, %c63 : index
      %slices = arith.divui %k63, %c64 : index
      // This CTA's work units (T-TILE-7): whole tiles, and a K range of a
      // tile split with other CTAs. (split_k against stream_k and
      // data_parallel: bench/schedule.py.)
      %units = tile.work_count split_k tiles %tiles iters %slices worker %cta of %ctas
      %ra = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !ring_a
      %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !ring_b
      %staging = tile.shared_alloc dynamic {swizzle = #c_swizzle} : !staging
      %full = tile.mbarrier_alloc : !bars
      %empty = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %a : !da
        tile.tma_prefetch_descriptor %b : !db
        scf.for %s = %c0 to %c_stages step %c1 {
          tile.mbarrier_init %full[%s], %copies : !bars
          tile.mbarrier_init %empty[%s], %consumers : !bars
        }
      }
      gpu.barrier
      // Launched as a programmatic dependent: global memory only after the
      // grid before this one (T-PDL-1, T-PDL-2).
      tile.grid_dependency_wait
      tile.warp_specialize producer(registers = 40) {
        // One thread issues the copies; the rest of the warpgroup idles. It
        // starts at phase 1 of the empty barriers, which fresh barriers
        // report as complete.
        scf.if %first {
          %pt:2 = scf.for %i = %c0 to %units step %c1
              iter_args(%s0 = %c0, %ph0 = %true) -> (index, i1) {
            %tile, %kfirst, %kcount, %fixup, %split, %splits = tile.work_unit %i of split_k
                tiles %tiles iters %slices worker %cta of %ctas
            // Row tiles per group of the tile order (4 measured 3% faster
            // than 8 at 8192^3 on an H100, 1% slower at 4096^3;
            // bench/NOTES.md).
            %pid_m, %pid_n = tile.tile_coord %tile in [%tiles_m, %tiles_n] group 4
            %kend = arith.addi %kfirst, %kcount : index
            %m0 = arith.muli %pid_m, %c128 : index
            %n0 = arith.muli %pid_n, %c_tile_n : index
            %p:2 = scf.for %t = %kfirst to %kend step %c1 iter_args(%s = %s0, %ph = %ph0) -> (index, i1) {
              tile.mbarrier_wait_parity %empty[%s], %ph : !bars
              %k0 = arith.muli %t, %c64 : index
              tile.tma_copy %a[%m0, %k0] to %ra[%s], %full[%s] : !da, !ring_a, !bars
              tile.tma_copy %b[%n0, %k0] to %rb[%s], %full[%s] : !db, !ring_b, !bars
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c_stages : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %ns, %nph : index, i1
            }
            scf.yield %p#0, %p#1 : index, i1
          }
        }
      } consumers(2, registers = 232) {
      ^bb0(%wg: index):
        // The warpgroup's rows of a tile: 64 from 64 wg, or (ping-pong) all.
        %wg_row = arith.muli %wg, %c64 : index
        %row = arith.select %pingpong, %c0, %wg_row : index
        %wg_slot = arith.select %pingpong, %c0, %wg : index
        // Ping-pong: the warpgroups' main loops take turns (named barrier
        // 9 + wg is this one's turn, 9 + (1 - wg) the other's; warpgroup 0
        // starts), so neither waits on a stage a phase ahead of the other's
        // unit (a parity names a phase only modulo 2, T-PROTO-7). Each CTA
        // ends with one turn handed on that nobody takes (a 128-thread
        // arrival at barrier 9 or 10), which ends with the CTA.
        %c9 = arith.constant 9 : index
        %my_turn_i = arith.addi %c9, %wg : index
        %my_turn = arith.index_cast %my_turn_i : index to i32
        %other_wg = arith.subi %c1, %wg : index
        %next_turn_i = arith.addi %c9, %other_wg : index
        %next_turn = arith.index_cast %next_turn_i : index to i32
        %second_wg = arith.cmpi eq, %wg, %c1 : index
        %starts_turns = arith.andi %pingpong, %second_wg : i1
        scf.if %starts_turns {
          tile.named_barrier_arrive %next_turn, 256
        }
        %lane = arith.remui %tid, %c128 : index
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero = arith.constant dense<0.0> : !acc
        %quantize = arith.constant #quantize
        %f0 = arith.constant 0.0 : f32
        %scale_c = scf.if %quantize -> (f32) {
          %loaded = memref.load %scale[%c0] : memref<?xf32>
          scf.yield %loaded : f32
        } else {
          %one = arith.constant 1.0 : f32
          scf.yield %one : f32
        }
        %ct:3 = scf.for %i = %c0 to %units step %c1
            iter_args(%s0 = %c0, %ph0 = %false, %amax0 = %f0) -> (index, i1, f32) {
          %tile, %kfirst, %kcount, %fixup, %split, %splits = tile.work_unit %i of split_k
              tiles %tiles iters %slices worker %cta of %ctas
          // Ping-pong: the other warpgroup's unit (odd units are warpgroup
          // 1's) passes its K-slices' stages by.
          %parity = arith.remui %i, %c2 : index
          %theirs = arith.cmpi ne, %parity, %wg : index
          %passes = arith.andi %pingpong, %theirs : i1
          %unit:3 = scf.if %passes -> (index, i1, f32) {
            %ahead = arith.addi %s0, %kcount : index
            %ps = arith.remui %ahead, %c_stages : index
            %wraps = arith.divui %ahead, %c_stages : index
            %wrap_parity = arith.remui %wraps, %c2 : index
            %odd = arith.cmpi ne, %wrap_parity, %c0 : index
            %pph = arith.xori %ph0, %odd : i1
            scf.yield %ps, %pph, %amax0 : index, i1, f32
          } else {
            %pid_m, %pid_n = tile.tile_coord %tile in [%tiles_m, %tiles_n] group 4
            %kend = arith.addi %kfirst, %kcount : index
            %m0 = arith.muli %pid_m, %c128 : index
            %n0 = arith.muli %pid_n, %c_tile_n : index
            scf.if %pingpong {
              tile.named_barrier_sync %my_turn, 256
            }
            %r:4 = scf.for %t = %kfirst to %kend step %c1
                iter_args(%acc = %zero, %s = %s0, %ph = %ph0, %prev = %c0)
                -> (!acc, index, i1, index) {
              tile.mbarrier_wait_parity %full[%s], %ph : !bars
              %next_acc = tile.warpgroup_mma %ra[%s, %row, %c0], %rb[%s, %c0, %c0], %acc
                  {shape = #mma, wait = 1 : i32}
                  : !ring_a, !ring_b, !acc
              // The previous stage's wgmmas are done (wait depth 1): one
              // thread of the warpgroup releases it.
              %later = arith.cmpi ugt, %t, %kfirst : index
              %release = arith.andi %later, %signals : i1
              scf.if %release {
                %tok = tile.mbarrier_arrive %empty[%prev] : !bars -> !tile.mbarrier_token
              }
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c_stages : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %next_acc, %ns, %nph, %s : !acc, index, i1, index
            }
            // Ping-pong: every stage of the unit has landed; the other's turn.
            scf.if %pingpong {
              tile.named_barrier_arrive %next_turn, 256
            }
            tile.wgmma_wait_group 0
            // The tile's last stage.
            scf.if %signals {
              %tok = tile.mbarrier_arrive %empty[%r#3] : !bars -> !tile.mbarrier_token
            }
            // A tile split with other CTAs: the last of its units to finish
            // sums the partials (each warpgroup its 64 rows, or with
            // #pingpong its whole tile) and stores it.
            // Slots: split_k gives every split tile the same splits;
            // stream_k 1 or 2 (2 slots).
            %wg_fixup = arith.muli %fixup, %c2 : index
            %slot = arith.addi %wg_fixup, %wg_slot : index
            %slots = arith.maxui %splits, %c2 : index
            %last, %sum = tile.split_k_reduce %r#0, %ws, %counters, tile %slot,
                split %split of %splits slots %slots : !acc, !workspace, !counters
            // The epilogue: the fused bias, activation (or gate) and residual,
            // then TMA chunks through the warpgroup's staging buffers,
            // written out by TMA while the next tile's MMAs run.
            %amax1 = scf.if %last -> (f32) {
              %m1 = arith.addi %m0, %row : index
              %has_bias = arith.constant #bias
              %biased = scf.if %has_bias -> (!acc) {
                %with_bias = tile.warpgroup_add %sum, %bias[%m1, %n0] {shape = #half_tile}
                    : !bias, !acc
                scf.yield %with_bias : !acc
              } else {
                scf.yield %sum : !acc
              }
              %activated = tile.warpgroup_activation #activation %biased
                  {gated = #gated, shape = #half_tile} : !acc -> !out
              %n1 = arith.divui %n0, %c_out_div : index
              %has_residual = arith.constant #residual
              %out = scf.if %has_residual -> (!out) {
                %with_residual = tile.warpgroup_add %activated, %residual[%m1, %n1]
                    {shape = #out_tile} : !residual, !out
                scf.yield %with_residual : !out
              } else {
                scf.yield %activated : !out
              }
              // FP8 out: the scale (and the clamp), and this thread's amax.
              // Elements past C are 0 (TMA's zero padding of A and B; the bias
              // and residual are not added there; the activations keep 0), so
              // the whole tile may count (an inf in A or B makes 0 * inf NaN
              // there, when C holds an inf or NaN itself).
              %q:2 = scf.if %quantize -> (!out, f32) {
                %magnitudes = math.absf %out : !out
                %peak = vector.reduction <maximumf>, %magnitudes, %amax0 : !out into f32
                %scales = vector.broadcast %scale_c : f32 to !out
                %scaled = arith.mulf %out, %scales : !out
                %saturate = arith.constant #saturate
                %quantized = scf.if %saturate -> (!out) {
                  %c_max = arith.constant #c_max
                  %highs = vector.broadcast %c_max : f32 to !out
                  %c_min = arith.negf %c_max : f32
                  %lows = vector.broadcast %c_min : f32 to !out
                  %below = arith.minimumf %scaled, %highs : !out
                  %clamped = arith.maximumf %below, %lows : !out
                  scf.yield %clamped : !out
                } else {
                  scf.yield %scaled : !out
                }
                scf.yield %quantized, %peak : !out, f32
              } else {
                scf.yield %out, %amax0 : !out, f32
              }
              %by_tma = arith.constant #tma_c
              scf.if %by_tma {
                tile.warpgroup_tma_store %q#0, %staging[%wg] to %c[%m1, %n1]
                    {shape = #out_tile} : !out, !staging, !dc
              } else {
                tile.warpgroup_coalesced_store %q#0, %staging[%wg] to %c_rows[%m1, %n1]
                    {shape = #out_tile} : !out, !staging, !c_rows
              }
              scf.yield %q#1 : f32
            } else {
              scf.yield %amax0 : f32
            }
            scf.yield %r#1, %r#2, %amax1 : index, i1, f32
          }
          scf.yield %unit#0, %unit#1, %unit#2 : index, i1, f32
        }
        // The last TMA stores have written C.
        scf.if %signals {
          tile.bulk_wait_group 0
        }
        // FP8 out: each warp's amax raises %amax (non-negative floats order
        // as their bits).
        scf.if %quantize {
          %signed_bits = arith.bitcast %ct#2 : f32 to i32
          // The magnitude's bits (a NaN's sign is unspecified): positive.
          %magnitude = arith.constant 0x7FFFFFFF : i32
          %bits = arith.andi %signed_bits, %magnitude : i32
          %warp_amax = gpu.subgroup_reduce maxsi %bits uniform : (i32) -> i32
          %c32 = arith.constant 32 : index
          %warp_lane = arith.remui %tid, %c32 : index
          %leads = arith.cmpi eq, %warp_lane, %c0 : index
          scf.if %leads {
            %old = memref.atomic_rmw maxs %warp_amax, %amax[%c0] : (i32, memref<?xi32>) -> i32
          }
        }
      }
      gpu.return
    }

    // C (M x N) = A (M x K) * B (K x N), as @gemm_nt but with B row-major:
    // each stage holds B's 64x256 K-slice as four 64-column chunks (TMA
    // boxes of 64 K rows x 64 columns = one 128-byte swizzle span), which
    // wgmma reads MN-major (transpose_b).
    gpu.func @gemm_nn(%a: !da, %b: !dbt, %c: !dc, %m: index, %n: index, %k: index,
                      %ws: !workspace, %counters: !counters, %bias: !bias,
                      %residual: !residual, %scale: memref<?xf32>,
                      %amax: memref<?xi32>, %c_rows: !c_rows) kernel
        attributes {known_block_size = array<i32: 384, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c_stages = arith.constant #stages
      %c2 = arith.constant 2 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %c_tile_n_1 = arith.constant #tile_n_1
      %c_tile_n = arith.constant #tile_n
      %c_out_div = arith.constant #out_div
      %copies = arith.constant #nn_copies
      %c_b_chunks = arith.constant #b_chunks
      %c_b_chunk = arith.constant #b_chunk
      %pingpong = arith.constant #pingpong
      %one_consumer = arith.constant 1 : i32
      %both_consumers = arith.constant 2 : i32
      %consumers = arith.select %pingpong, %one_consumer, %both_consumers : i32
      %false = arith.constant false
      %true = arith.constant true
      %tid = gpu.thread_id x
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %m127 = arith.addi %m, %c127 : index
      %tiles_m = arith.divui %m127, %c128 : index
      %n255 = arith.addi %n, %c_tile_n_1 : index
      %tiles_n = arith.divui %n255, %c_tile_n : index
      %tiles = arith.muli %tiles_m, %tiles_n : index
      %k63 = arith.addi %k, %c63 : index
      %slices = arith.divui %k63, %c64 : index
      // This CTA's work units (T-TILE-7): whole tiles, and a K range of a
      // tile split with other CTAs. (split_k against stream_k and
      // data_parallel: bench/schedule.py.)
      %units = tile.work_count split_k tiles %tiles iters %slices worker %cta of %ctas
      %ra = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !ring_a
      %rb = tile.shared_alloc dynamic {swizzle = #bt_swizzle} : !ring_bt
      %staging = tile.shared_alloc dynamic {swizzle = #c_swizzle} : !staging
      %full = tile.mbarrier_alloc : !bars
      %empty = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %a : !da
        tile.tma_prefetch_descriptor %b : !dbt
        scf.for %s = %c0 to %c_stages step %c1 {
          tile.mbarrier_init %full[%s], %copies : !bars
          tile.mbarrier_init %empty[%s], %consumers : !bars
        }
      }
      gpu.barrier
      // Launched as a programmatic dependent: global memory only after the
      // grid before this one (T-PDL-1, T-PDL-2).
      tile.grid_dependency_wait
      tile.warp_specialize producer(registers = 40) {
        // One thread issues the copies; the rest of the warpgroup idles. It
        // starts at phase 1 of the empty barriers, which fresh barriers
        // report as complete.
        scf.if %first {
          %pt:2 = scf.for %i = %c0 to %units step %c1
              iter_args(%s0 = %c0, %ph0 = %true) -> (index, i1) {
            %tile, %kfirst, %kcount, %fixup, %split, %splits = tile.work_unit %i of split_k
                tiles %tiles iters %slices worker %cta of %ctas
            // Row tiles per group of the tile order (4 measured 3% faster
            // than 8 at 8192^3 on an H100, 1% slower at 4096^3;
            // bench/NOTES.md).
            %pid_m, %pid_n = tile.tile_coord %tile in [%tiles_m, %tiles_n] group 4
            %kend = arith.addi %kfirst, %kcount : index
            %m0 = arith.muli %pid_m, %c128 : index
            %n0 = arith.muli %pid_n, %c_tile_n : index
            %p:2 = scf.for %t = %kfirst to %kend step %c1 iter_args(%s = %s0, %ph = %ph0) -> (index, i1) {
              tile.mbarrier_wait_parity %empty[%s], %ph : !bars
              %k0 = arith.muli %t, %c64 : index
              tile.tma_copy %a[%m0, %k0] to %ra[%s], %full[%s] : !da, !ring_a, !bars
              scf.for %q = %c0 to %c_b_chunks step %c1 {
                %q_cols = arith.muli %q, %c_b_chunk : index
                %nq = arith.addi %n0, %q_cols : index
                tile.tma_copy %b[%k0, %nq] to %rb[%s, %q], %full[%s] : !dbt, !ring_bt, !bars
              }
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c_stages : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %ns, %nph : index, i1
            }
            scf.yield %p#0, %p#1 : index, i1
          }
        }
      } consumers(2, registers = 232) {
      ^bb0(%wg: index):
        // The warpgroup's rows of a tile: 64 from 64 wg, or (ping-pong) all.
        %wg_row = arith.muli %wg, %c64 : index
        %row = arith.select %pingpong, %c0, %wg_row : index
        %wg_slot = arith.select %pingpong, %c0, %wg : index
        // Ping-pong: the warpgroups' main loops take turns (named barrier
        // 9 + wg is this one's turn, 9 + (1 - wg) the other's; warpgroup 0
        // starts), so neither waits on a stage a phase ahead of the other's
        // unit (a parity names a phase only modulo 2, T-PROTO-7). Each CTA
        // ends with one turn handed on that nobody takes (a 128-thread
        // arrival at barrier 9 or 10), which ends with the CTA.
        %c9 = arith.constant 9 : index
        %my_turn_i = arith.addi %c9, %wg : index
        %my_turn = arith.index_cast %my_turn_i : index to i32
        %other_wg = arith.subi %c1, %wg : index
        %next_turn_i = arith.addi %c9, %other_wg : index
        %next_turn = arith.index_cast %next_turn_i : index to i32
        %second_wg = arith.cmpi eq, %wg, %c1 : index
        %starts_turns = arith.andi %pingpong, %second_wg : i1
        scf.if %starts_turns {
          tile.named_barrier_arrive %next_turn, 256
        }
        %lane = arith.remui %tid, %c128 : index
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero = arith.constant dense<0.0> : !acc
        %quantize = arith.constant #quantize
        %f0 = arith.constant 0.0 : f32
        %scale_c = scf.if %quantize -> (f32) {
          %loaded = memref.load %scale[%c0] : memref<?xf32>
          scf.yield %loaded : f32
        } else {
          %one = arith.constant 1.0 : f32
          scf.yield %one : f32
        }
        %ct:3 = scf.for %i = %c0 to %units step %c1
            iter_args(%s0 = %c0, %ph0 = %false, %amax0 = %f0) -> (index, i1, f32) {
          %tile, %kfirst, %kcount, %fixup, %split, %splits = tile.work_unit %i of split_k
              tiles %tiles iters %slices worker %cta of %ctas
          // Ping-pong: the other warpgroup's unit (odd units are warpgroup
          // 1's) passes its K-slices' stages by.
          %parity = arith.remui %i, %c2 : index
          %theirs = arith.cmpi ne, %parity, %wg : index
          %passes = arith.andi %pingpong, %theirs : i1
          %unit:3 = scf.if %passes -> (index, i1, f32) {
            %ahead = arith.addi %s0, %kcount : index
            %ps = arith.remui %ahead, %c_stages : index
            %wraps = arith.divui %ahead, %c_stages : index
            %wrap_parity = arith.remui %wraps, %c2 : index
            %odd = arith.cmpi ne, %wrap_parity, %c0 : index
            %pph = arith.xori %ph0, %odd : i1
            scf.yield %ps, %pph, %amax0 : index, i1, f32
          } else {
            %pid_m, %pid_n = tile.tile_coord %tile in [%tiles_m, %tiles_n] group 4
            %kend = arith.addi %kfirst, %kcount : index
            %m0 = arith.muli %pid_m, %c128 : index
            %n0 = arith.muli %pid_n, %c_tile_n : index
            scf.if %pingpong {
              tile.named_barrier_sync %my_turn, 256
            }
            %r:4 = scf.for %t = %kfirst to %kend step %c1
                iter_args(%acc = %zero, %s = %s0, %ph = %ph0, %prev = %c0)
                -> (!acc, index, i1, index) {
              tile.mbarrier_wait_parity %full[%s], %ph : !bars
              %next_acc = tile.warpgroup_mma %ra[%s, %row, %c0], %rb[%s, %c0, %c0, %c0], %acc
                  {shape = #mma, wait = 1 : i32, transpose_b}
                  : !ring_a, !ring_bt, !acc
              // The previous stage's wgmmas are done (wait depth 1): one
              // thread of the warpgroup releases it.
              %later = arith.cmpi ugt, %t, %kfirst : index
              %release = arith.andi %later, %signals : i1
              scf.if %release {
                %tok = tile.mbarrier_arrive %empty[%prev] : !bars -> !tile.mbarrier_token
              }
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c_stages : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %next_acc, %ns, %nph, %s : !acc, index, i1, index
            }
            // Ping-pong: every stage of the unit has landed; the other's turn.
            scf.if %pingpong {
              tile.named_barrier_arrive %next_turn, 256
            }
            tile.wgmma_wait_group 0
            // The tile's last stage.
            scf.if %signals {
              %tok = tile.mbarrier_arrive %empty[%r#3] : !bars -> !tile.mbarrier_token
            }
            // A tile split with other CTAs: the last of its units to finish
            // sums the partials (each warpgroup its 64 rows, or with
            // #pingpong its whole tile) and stores it.
            // Slots: split_k gives every split tile the same splits;
            // stream_k 1 or 2 (2 slots).
            %wg_fixup = arith.muli %fixup, %c2 : index
            %slot = arith.addi %wg_fixup, %wg_slot : index
            %slots = arith.maxui %splits, %c2 : index
            %last, %sum = tile.split_k_reduce %r#0, %ws, %counters, tile %slot,
                split %split of %splits slots %slots : !acc, !workspace, !counters
            // The epilogue: the fused bias, activation (or gate) and residual,
            // then TMA chunks through the warpgroup's staging buffers,
            // written out by TMA while the next tile's MMAs run.
            %amax1 = scf.if %last -> (f32) {
              %m1 = arith.addi %m0, %row : index
              %has_bias = arith.constant #bias
              %biased = scf.if %has_bias -> (!acc) {
                %with_bias = tile.warpgroup_add %sum, %bias[%m1, %n0] {shape = #half_tile}
                    : !bias, !acc
                scf.yield %with_bias : !acc
              } else {
                scf.yield %sum : !acc
              }
              %activated = tile.warpgroup_activation #activation %biased
                  {gated = #gated, shape = #half_tile} : !acc -> !out
              %n1 = arith.divui %n0, %c_out_div : index
              %has_residual = arith.constant #residual
              %out = scf.if %has_residual -> (!out) {
                %with_residual = tile.warpgroup_add %activated, %residual[%m1, %n1]
                    {shape = #out_tile} : !residual, !out
                scf.yield %with_residual : !out
              } else {
                scf.yield %activated : !out
              }
              // FP8 out: the scale (and the clamp), and this thread's amax.
              // Elements past C are 0 (TMA's zero padding of A and B; the bias
              // and residual are not added there; the activations keep 0), so
              // the whole tile may count (an inf in A or B makes 0 * inf NaN
              // there, when C holds an inf or NaN itself).
              %q:2 = scf.if %quantize -> (!out, f32) {
                %magnitudes = math.absf %out : !out
                %peak = vector.reduction <maximumf>, %magnitudes, %amax0 : !out into f32
                %scales = vector.broadcast %scale_c : f32 to !out
                %scaled = arith.mulf %out, %scales : !out
                %saturate = arith.constant #saturate
                %quantized = scf.if %saturate -> (!out) {
                  %c_max = arith.constant #c_max
                  %highs = vector.broadcast %c_max : f32 to !out
                  %c_min = arith.negf %c_max : f32
                  %lows = vector.broadcast %c_min : f32 to !out
                  %below = arith.minimumf %scaled, %highs : !out
                  %clamped = arith.maximumf %below, %lows : !out
                  scf.yield %clamped : !out
                } else {
                  scf.yield %scaled : !out
                }
                scf.yield %quantized, %peak : !out, f32
              } else {
                scf.yield %out, %amax0 : !out, f32
              }
              %by_tma = arith.constant #tma_c
              scf.if %by_tma {
                tile.warpgroup_tma_store %q#0, %staging[%wg] to %c[%m1, %n1]
                    {shape = #out_tile} : !out, !staging, !dc
              } else {
                tile.warpgroup_coalesced_store %q#0, %staging[%wg] to %c_rows[%m1, %n1]
                    {shape = #out_tile} : !out, !staging, !c_rows
              }
              scf.yield %q#1 : f32
            } else {
              scf.yield %amax0 : f32
            }
            scf.yield %r#1, %r#2, %amax1 : index, i1, f32
          }
          scf.yield %unit#0, %unit#1, %unit#2 : index, i1, f32
        }
        // The last TMA stores have written C.
        scf.if %signals {
          tile.bulk_wait_group 0
        }
        // FP8 out: each warp's amax raises %amax (non-negative floats order
        // as their bits).
        scf.if %quantize {
          %signed_bits = arith.bitcast %ct#2 : f32 to i32
          // The magnitude's bits (a NaN's sign is unspecified): positive.
          %magnitude = arith.constant 0x7FFFFFFF : i32
          %bits = arith.andi %signed_bits, %magnitude : i32
          %warp_amax = gpu.subgroup_reduce maxsi %bits uniform : (i32) -> i32
          %c32 = arith.constant 32 : index
          %warp_lane = arith.remui %tid, %c32 : index
          %leads = arith.cmpi eq, %warp_lane, %c0 : index
          scf.if %leads {
            %old = memref.atomic_rmw maxs %warp_amax, %amax[%c0] : (i32, memref<?xi32>) -> i32
          }
        }
      }
      gpu.return
    }
  }

  func.func @fill(%h: memref<?x?x!e>, %p: index, %q: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %rows = memref.dim %h, %c0 : memref<?x?x!e>
    %cols = memref.dim %h, %c1 : memref<?x?x!e>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %ip = arith.muli %i, %p : index
        %jq = arith.muli %j, %q : index
        %s = arith.addi %ip, %jq : index
        %r = arith.remui %s, %c5 : index
        %ri = arith.index_cast %r : index to i32
        %f = arith.sitofp %ri : i32 to !e
        %two = arith.constant 2.0 : !e
        %v = arith.subf %f, %two : !e
        memref.store %v, %h[%i, %j] : memref<?x?x!e>
      }
    }
    return
  }

  // Runs C = A B^T (`transposed`, B is N x K) or C = A B (B is K x N) at
  // (m, n, k) `reps` times and returns the number of elements of C that
  // differ from the host's product (all of them, or 64 sampled ones when
  // `sampled`).
  func.func @run(%m: index, %n: index, %k: index, %reps: index, %sampled: i1,
                 %transposed: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %c_tile_n_1 = arith.constant #tile_n_1
    %c_tile_n = arith.constant #tile_n
    %c384 = arith.constant 384 : index
    %c613 = arith.constant 613 : index
    %c997 = arith.constant 997 : index
    // The ring as written (4 stages: 64 KB of A, 128 KB of B tiles) and 2 x
    // 2 staging buffers of 8 KB; the other widths' rings and buffers
    // (tile.ops.persistent.RING_STAGES) take no more.
    %smem = arith.constant 229376 : i32
    %ha = memref.alloc(%m, %k) : memref<?x?x!e>
    %hc = memref.alloc(%m, %n) : memref<?x?x!e>
    func.call @fill(%ha, %c3, %c7) : (memref<?x?x!e>, index, index) -> ()
    %brows = arith.select %transposed, %n, %k : index
    %bcols = arith.select %transposed, %k, %n : index
    %hb = memref.alloc(%brows, %bcols) : memref<?x?x!e>
    scf.if %transposed {
      func.call @fill(%hb, %c2, %c3) : (memref<?x?x!e>, index, index) -> ()
    } else {
      func.call @fill(%hb, %c7, %c2) : (memref<?x?x!e>, index, index) -> ()
    }
    %da = gpu.alloc (%m, %k) : memref<?x?x!e>
    %db = gpu.alloc (%brows, %bcols) : memref<?x?x!e>
    // C, as the element type the host checks (!e) and as the kernel's (!ce,
    // which an FP8 variant redefines): views of one buffer.
    %c_elements = arith.muli %m, %n : index
    %c_bytes = arith.muli %c_elements, %c2 : index
    %dc_bytes = gpu.alloc (%c_bytes) : memref<?xi8>
    %dc = memref.view %dc_bytes[%c0][%m, %n] : memref<?xi8> to memref<?x?x!e>
    %dc_kernel = memref.view %dc_bytes[%c0][%m, %n] : memref<?xi8> to memref<?x?x!ce>
    // The FP8 out's scale (1) and amax (0), not read as written.
    %c_scale = gpu.alloc (%c1) : memref<?xf32>
    %unit = arith.constant 1.0 : f32
    gpu.memset %c_scale, %unit : memref<?xf32>, f32
    %c_amax = gpu.alloc (%c1) : memref<?xi32>
    %no_amax = arith.constant 0 : i32
    gpu.memset %c_amax, %no_amax : memref<?xi32>, i32
    gpu.memcpy %da, %ha : memref<?x?x!e>, memref<?x?x!e>
    gpu.memcpy %db, %hb : memref<?x?x!e>, memref<?x?x!e>
    // Persistent: one CTA per SM (132 on an H100/H200 SXM), or fewer tiles.
    %c132 = arith.constant 132 : index
    %n255 = arith.addi %n, %c_tile_n_1 : index
    %tn = arith.divui %n255, %c_tile_n : index
    %m127 = arith.addi %m, %c127 : index
    %tm = arith.divui %m127, %c128 : index
    %tiles = arith.muli %tm, %tn : index
    %grid = arith.minui %tiles, %c132 : index
    // Split tiles: r <= grid / 2 of them, each of two 64-row halves with
    // a slot of 128 rows for each of its s splits, s <= grid / r: 2 x grid
    // x 128 rows (stream_k needs at most 768 a CTA: 1024 leave room);
    // their counters start at zero.
    %c1024 = arith.constant 1024 : index
    %ws_rows = arith.muli %grid, %c1024 : index
    %ws = gpu.alloc (%ws_rows) : !workspace
    %halves = arith.muli %grid, %c4 : index
    %counters = gpu.alloc (%halves) : !counters
    %zero_count = arith.constant 0 : i32
    gpu.memset %counters, %zero_count : !counters, i32
      %ta = tile.tma_create_descriptor %da : memref<?x?x!e> -> !da
      // C through TMA stores: its rows must be 16-byte multiples (N % 8 == 0).
      %tc = tile.tma_create_descriptor %dc_kernel : memref<?x?x!ce> -> !dc
      // No epilogue operands are read as written: C stands in for them
      // (with any strides the bias type names).
      %c_strided = memref.reinterpret_cast %dc to offset: [0], sizes: [%m, %n], strides: [%n, %c1]
          : memref<?x?x!e> to memref<?x?x!e, strided<[?, ?]>>
      %bias = memref.cast %c_strided : memref<?x?x!e, strided<[?, ?]>> to !bias
      %residual = memref.cast %dc : memref<?x?x!e> to !residual
      // C's rows for the stores of a variant without TMA's (#tma_c false).
      %c_rows = memref.cast %dc_kernel : memref<?x?x!ce> to !c_rows
      scf.if %transposed {
        %tb = tile.tma_create_descriptor %db : memref<?x?x!e> -> !db
        scf.for %r = %c0 to %reps step %c1 {
          gpu.launch_func @kernels::@gemm_nt blocks in (%grid, %c1, %c1) threads in (%c384, %c1, %c1)
              dynamic_shared_memory_size %smem
              args(%ta : !da, %tb : !db, %tc : !dc, %m : index, %n : index, %k : index,
                   %ws : !workspace, %counters : !counters, %bias : !bias,
                   %residual : !residual, %c_scale : memref<?xf32>, %c_amax : memref<?xi32>,
                   %c_rows : !c_rows)
        }
      } else {
        %tb = tile.tma_create_descriptor %db : memref<?x?x!e> -> !dbt
        scf.for %r = %c0 to %reps step %c1 {
          gpu.launch_func @kernels::@gemm_nn blocks in (%grid, %c1, %c1) threads in (%c384, %c1, %c1)
              dynamic_shared_memory_size %smem
              args(%ta : !da, %tb : !dbt, %tc : !dc, %m : index, %n : index, %k : index,
                   %ws : !workspace, %counters : !counters, %bias : !bias,
                   %residual : !residual, %c_scale : memref<?xf32>, %c_amax : memref<?xi32>,
                   %c_rows : !c_rows)
        }
      }
    gpu.memcpy %hc, %dc : memref<?x?x!e>, memref<?x?x!e>
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tol = arith.constant 1.0e-2 : f32
    %onef = arith.constant 1.0 : f32
    %mn = arith.muli %m, %n : index
    %count = arith.select %sampled, %c64, %mn : index
    %bad = scf.for %e = %c0 to %count step %c1 iter_args(%b = %none) -> (i32) {
      %ei = arith.muli %e, %c997 : index
      %si = arith.remui %ei, %m : index
      %ej = arith.muli %e, %c613 : index
      %sj = arith.remui %ej, %n : index
      %ai = arith.divui %e, %n : index
      %aj = arith.remui %e, %n : index
      %i = arith.select %sampled, %si, %ai : index
      %j = arith.select %sampled, %sj, %aj : index
      %ref = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %ha[%i, %l] : memref<?x?x!e>
        %br = arith.select %transposed, %j, %l : index
        %bc = arith.select %transposed, %l, %j : index
        %y = memref.load %hb[%br, %bc] : memref<?x?x!e>
        %xf = arith.extf %x : !e to f32
        %yf = arith.extf %y : !e to f32
        %p = math.fma %xf, %yf, %acc : f32
        scf.yield %p : f32
      }
      %got = memref.load %hc[%i, %j] : memref<?x?x!e>
      %gf = arith.extf %got : !e to f32
      %d = arith.subf %gf, %ref : f32
      %ad = math.absf %d : f32
      %ar = math.absf %ref : f32
      %scale = arith.maximumf %ar, %onef : f32
      %rel = arith.divf %ad, %scale : f32
      %off = arith.cmpf ogt, %rel, %tol : f32
      %inc = arith.select %off, %one, %none : i32
      %nb = arith.addi %b, %inc : i32
      scf.yield %nb : i32
    }
    gpu.dealloc %da : memref<?x?x!e>
    gpu.dealloc %db : memref<?x?x!e>
    gpu.dealloc %dc_bytes : memref<?xi8>
    gpu.dealloc %c_scale : memref<?xf32>
    gpu.dealloc %c_amax : memref<?xi32>
    gpu.dealloc %ws : !workspace
    gpu.dealloc %counters : !counters
    memref.dealloc %ha : memref<?x?x!e>
    memref.dealloc %hb : memref<?x?x!e>
    memref.dealloc %hc : memref<?x?x!e>
    return %bad : i32
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %false = arith.constant false
    %m = arith.constant 256 : index
    %n = arith.constant 512 : index
    %k = arith.constant 512 : index
    %bad_nt = func.call @run(%m, %n, %k, %c1, %false, %true) : (index, index, index, index, i1, i1) -> i32
    vector.print str "gemm A*B^T 256x512x512 mismatches: "
    vector.print %bad_nt : i32
    %bad_nn = func.call @run(%m, %n, %k, %c1, %false, %false) : (index, index, index, index, i1, i1) -> i32
    vector.print str "gemm A*B 256x512x512 mismatches: "
    vector.print %bad_nn : i32
    %om = arith.constant 200 : index
    %on = arith.constant 296 : index
    %ok = arith.constant 200 : index
    %odd_nt = func.call @run(%om, %on, %ok, %c1, %false, %true) : (index, index, index, index, i1, i1) -> i32
    vector.print str "gemm A*B^T 200x296x200 mismatches: "
    vector.print %odd_nt : i32
    %odd_nn = func.call @run(%om, %on, %ok, %c1, %false, %false) : (index, index, index, index, i1, i1) -> i32
    vector.print str "gemm A*B 200x296x200 mismatches: "
    vector.print %odd_nn : i32
    // Decode-like shapes (M <= 64) run on the same kernels here (tile.matmul
    // takes the decode kernels of python/tile/ops/decode.py for them).
    %dm = arith.constant 13 : index
    %dn = arith.constant 304 : index
    %dk = arith.constant 200 : index
    %dbad = func.call @run(%dm, %dn, %dk, %c1, %false, %true) : (index, index, index, index, i1, i1) -> i32
    vector.print str "gemm A*B^T 13x304x200 mismatches: "
    vector.print %dbad : i32
    return
  }
}
