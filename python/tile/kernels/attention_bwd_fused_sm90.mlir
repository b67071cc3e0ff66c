// Fused attention backward in tile IR (sm_90a), FlashAttention-3's
// algorithm: one kernel computes dK and dV of a 128-key block as
// attention_bwd_sm90.mlir's @attention_bwd_dkdv_d128 does (same inputs, same
// order of its sums over the queries) and adds each query tile's share of dQ
// = scale dS K into a float32 dQ by TMA reductions. The order of those
// additions varies run to run, so dQ's bits may too
// (tile.ops.attention_backward keeps the two-kernel path as its
// deterministic mode). Per query tile, 5 products instead of the two
// kernels' 7 (P and dP are not recomputed for dQ).
//
// One CTA a 128-key block of a KV head (b Hkv + hk), over the query tiles
// of T rows of the head's group (the grid: bands of %band KV heads, key
// block by key block); warpgroup 0 (one thread) loads with TMA and bulk
// copies, two consumer warpgroups of 64 keys each: per query tile
//   S^T = K Q^T, dP^T = V dO^T, P^T = exp2(c S^T + nlse), dS^T = P^T (dP^T + ndelta)
//   dV += P^T dO                                   (registers, as the dK/dV kernel)
//   dS^T into shared memory (both halves of 128 keys: a two-stage ring,
//   fenced for the async proxy, the warpgroups meet at a named barrier)
//   dQ part = scale dS K over all 128 keys         (warpgroup w: T = 64, its
//                                                   half of D; T = 128, its
//                                                   64 queries)
//   dK += dS^T Q                                   (registers, under the next line)
//   tile.warpgroup_tma_store ... reduce add of dQ's part into dq_acc.
// T is 64 at D = 128 and 128 at D = 64 (FlashAttention-3's tiles: at D =
// 64 the 64 x 128 S^T and dP^T fit the registers, and a step's fixed costs,
// the barrier, the waits, the masks, are paid per 128 queries).
// dq_acc is (B, H, Sq, D) float32, zero before the launch; rows past Sq are
// clipped by TMA. Causal masks, GQA, nlse and ndelta as in
// attention_bwd_sm90.mlir (rows of whole query tiles at %pitch).
// Packed sequences (%varlen, flash_attn_varlen_func's layout): B sequences
// in one batch of (1, H, total, D) tensors, sequence b's queries at rows
// cu_q[b] .. cu_q[b + 1] and keys at cu_k[b] .. cu_k[b + 1], %sq and %sk
// the longest sequence's (the grid's key blocks); its masks, causal
// diagonals and tiles count from the sequence's own lengths; its rows of
// nlse and ndelta as attention_bwd_sm90.mlir says. A tile's rows
// past its sequence have nlse -inf (P = 0), a block's keys past it are
// masked: what they add into the next sequence's rows is zero. So dQ's
// parts, and dK and dV too (TMA reductions into zeroed bf16/f16 gradients,
// each row's one nonzero value added exactly), go to whole TMA boxes.
//
//   tile-opt python/tile/kernels/attention_bwd_fused_sm90.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32"

// The element type of Q, K, V, dO and the gradients (f16 or bf16).
!e = bf16
!d128 = !tile.tma_desc<memref<?x?x?x?x!e>, box = [1, 1, 128, 64], swizzle = b128>
!d64 = !tile.tma_desc<memref<?x?x?x?x!e>, box = [1, 1, 64, 64], swizzle = b128>
// dQ's float32 accumulator, reduced in boxes of 64 rows x 32 columns (one
// 128-byte swizzle span).
!dqacc = !tile.tma_desc<memref<?x?x?x?xf32>, box = [1, 1, 64, 32], swizzle = b128>
// The head dimension D and what depends on it (128 as written;
// tile.ops.attention_backward.fused_aliases): the gradients, the D / 64
// chunks of the K/V tiles and Q/dO stages, the Q/dO ring depth (two stages
// at D = 128: 64 KB), a warpgroup's part of dQ (64 rows x W columns, in
// 32-column reductions through a staging buffer each: W = 64, two).
!grad = vector<64xf32>
!dq_part = vector<32xf32>
!tile128 = memref<1x2x128x64x!e, 3>
!qo_ring = memref<2x2x64x64x!e, 3>
!staging = memref<2x2x64x64x!e, 3>
!dq_staging = memref<2x2x64x32xf32, 3>
#scores_t = array<i64: 64, 64, 128>
#dkv_mma = array<i64: 64, 128, 64>
#dq_mma = array<i64: 64, 64, 128>
#grad_rows = array<i64: 64, 128>
#dq_rows = array<i64: 64, 64>
#dq_cols = 64 : index
#chunks = 2 : i32
#qo_stages = 2 : index
!qobars = !tile.mbarrier<count = 2>
// The query tile T of a step and what depends on it (64 as written; 128 at
// D = 64): the Q/dO boxes, a warpgroup's 64 keys x T queries of S^T, dP^T,
// P^T and dS^T (T / 2 values a thread), the stage's nlse and ndelta (T
// values, 4 T bytes each; read as the columns of a 64 x 128 view of the
// stage's 128 slots), and dQ's split between the warpgroups:
// at T = 64 each takes half of D's columns (#dq_cols) of the 64 queries, at
// T = 128 each all of D for its 64 queries (#dq_row_step).
#query_tile = 64 : index
!dqo = !tile.tma_desc<memref<?x?x?x?x!e>, box = [1, 1, 64, 64], swizzle = b128>
!scores = vector<32xf32>
!scores_i = vector<32xi32>
!scores_b = vector<32xi1>
!scores_e = vector<32x!e>
#scores_tile = array<i64: 64, 64>
#rows_bytes = 256 : i32
!rows_ring = memref<2x128xf32, 3>
!srows = memref<64x128xf32, strided<[0, 1], offset: ?>, 3>
#dq_row_step = 0 : index
!bars1 = !tile.mbarrier<count = 1>
// dS^T of the block's 128 keys (rows) x T queries, in T / 64 spans of 64
// queries (the 128-byte swizzle span): wgmma's MN-major A of dS, two stages.
!ds_ring = memref<2x1x128x64x!e, 3>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @attention_bwd_fused_d128(%q: !dqo, %k: !d128, %v: !d128, %do: !dqo, %dk: !d64,
                                       %dv: !d64, %dq_acc: !dqacc, %nlse: memref<?xf32>,
                                       %ndelta: memref<?xf32>, %heads: index, %group: index,
                                       %sq: index, %sk: index, %pitch: index,
                                       %scale_log2: f32, %scale: f32, %causal: i1,
                                       %bottom_right: i1, %band: index, %varlen: i1,
                                       %cu_q: memref<?xi32>, %cu_k: memref<?xi32>,
                                       %total_q: index, %total_k: index) kernel
        // .minnctapersm 1: with .maxntid, ptxas knows the register count
        // at entry and applies setmaxnreg (at D = 64 it otherwise ignored
        // it, C7508, and spilled).
        attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
      // Launched as a programmatic dependent: every access of global memory
      // after the grid before this one (T-PDL-1, T-PDL-2; it reads its offsets first).
      tile.grid_dependency_wait
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %qt = arith.constant #query_tile
      %c_stages = arith.constant #qo_stages
      %chunks = arith.constant #chunks
      %c2_i32 = arith.constant 2 : i32
      %two_chunks = arith.cmpi eq, %chunks, %c2_i32 : i32
      %kv_copies = arith.muli %chunks, %c2_i32 : i32
      %false = arith.constant false
      %true = arith.constant true
      // Packed sequences (%varlen); tile.ops.attention_backward's dense
      // variants fold this switch to false, and the packed path away.
      %packed = arith.andi %varlen, %true : i1
      %tid = gpu.thread_id x
      // A one-dimensional grid (B Hkv key blocks of each KV head b Hkv +
      // hk) in bands of %band KV heads (the last band what is left), each
      // band key block by key block, its heads' blocks side by side: the
      // CTAs that run together share a few heads' Q, dO and dQ tiles (in L2:
      // dQ's reductions hit it), and within a band the blocks the most
      // queries see (the first, causal) start first.
      %c127 = arith.constant 127 : index
      %sk127 = arith.addi %sk, %c127 : index
      %key_blocks = arith.divui %sk127, %c128 : index
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %kv_rows = arith.divui %ctas, %key_blocks : index
      %band_ctas = arith.muli %band, %key_blocks : index
      %band_i = arith.divui %cta, %band_ctas : index
      %in_band = arith.remui %cta, %band_ctas : index
      %band0 = arith.muli %band_i, %band : index
      %rows_left = arith.subi %kv_rows, %band0 : index
      %width = arith.minui %band, %rows_left : index
      %nt = arith.divui %in_band, %width : index
      %band_head = arith.remui %in_band, %width : index
      %bhk = arith.addi %band0, %band_head : index
      %kv_heads = arith.divui %heads, %group : index
      %b = arith.divui %bhk, %kv_heads : index
      %hk = arith.remui %bhk, %kv_heads : index
      %n0 = arith.muli %nt, %c128 : index
      // The sequence: the whole of Sq and Sk, or packed sequence b (its
      // offsets clamped to the packed rows and to the longest sequence:
      // bad cu_seqlens read and write nothing outside the tensors).
      %b1 = arith.addi %b, %c1 : index
      %qrow0, %len_q, %krow0, %len_k, %rows0 = scf.if %packed
          -> (index, index, index, index, index) {
        %q0_i32 = memref.load %cu_q[%b] : memref<?xi32>
        %q1_i32 = memref.load %cu_q[%b1] : memref<?xi32>
        %k0_i32 = memref.load %cu_k[%b] : memref<?xi32>
        %k1_i32 = memref.load %cu_k[%b1] : memref<?xi32>
        %q0_raw = arith.index_cast %q0_i32 : i32 to index
        %q1_raw = arith.index_cast %q1_i32 : i32 to index
        %k0_raw = arith.index_cast %k0_i32 : i32 to index
        %k1_raw = arith.index_cast %k1_i32 : i32 to index
        %q0_pos = arith.maxsi %q0_raw, %c0 : index
        %q0_seq = arith.minsi %q0_pos, %total_q : index
        %q1_lo = arith.maxsi %q1_raw, %q0_seq : index
        %q1_seq = arith.minsi %q1_lo, %total_q : index
        %k0_pos = arith.maxsi %k0_raw, %c0 : index
        %k0_seq = arith.minsi %k0_pos, %total_k : index
        %k1_lo = arith.maxsi %k1_raw, %k0_seq : index
        %k1_seq = arith.minsi %k1_lo, %total_k : index
        %lq_all = arith.subi %q1_seq, %q0_seq : index
        %lk_all = arith.subi %k1_seq, %k0_seq : index
        %lq = arith.minsi %lq_all, %sq : index
        %lk = arith.minsi %lk_all, %sk : index
        // Its rows of nlse and ndelta: head h's from h %pitch + start,
        // start = cu_q[b] + 128 b rounded down to a row tile.
        %b128 = arith.muli %b, %c128 : index
        %q0_b = arith.addi %q0_seq, %b128 : index
        %start_tiles = arith.divui %q0_b, %c128 : index
        %start = arith.muli %start_tiles, %c128 : index
        scf.yield %q0_seq, %lq, %k0_seq, %lk, %start : index, index, index, index, index
      } else {
        // Head (b, h)'s rows from (b H + h) %pitch.
        %bh_rows = arith.muli %b, %heads : index
        %b_rows = arith.muli %bh_rows, %pitch : index
        scf.yield %c0, %sq, %c0, %sk, %b_rows : index, index, index, index, index
      }
      // The tensor maps' batch coordinate (0 for packed sequences), the
      // block's first key row.
      %bt = arith.select %packed, %c0, %b : index
      %krow = arith.addi %krow0, %n0 : index
      // Query i sees key j where j <= i + diag (causal): the block's first
      // key is seen from query n0 - diag on.
      %sk_sq = arith.subi %len_k, %len_q : index
      %diag = arith.select %bottom_right, %sk_sq, %c0 : index
      %hi = arith.select %causal, %diag, %len_k : index
      %first_q_raw = arith.subi %n0, %hi : index
      %first_q = arith.maxsi %first_q_raw, %c0 : index
      %qt_1 = arith.subi %qt, %c1 : index
      %sq_up = arith.addi %len_q, %qt_1 : index
      %tiles_q = arith.divui %sq_up, %qt : index
      %i_first = arith.divui %first_q, %qt : index
      %i_start = arith.minui %i_first, %tiles_q : index
      %tiles_after = arith.subi %tiles_q, %i_start : index
      // The group's query heads, each its query tiles from i_start on (none
      // for a block past its packed sequence's keys).
      %past_sequence = arith.cmpi uge, %n0, %len_k : index
      %block_past = arith.andi %packed, %past_sequence : i1
      %block_live = arith.xori %block_past, %true : i1
      %tiles_left = arith.select %block_live, %tiles_after, %c0 : index
      %steps = arith.muli %group, %tiles_left : index
      %sk_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !tile128
      %sv_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !tile128
      %sq_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !qo_ring
      %sdo_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !qo_ring
      %sds_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !ds_ring
      %staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !staging
      %dq_staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !dq_staging
      %slse = tile.shared_alloc dynamic : !rows_ring
      %sdelta = tile.shared_alloc dynamic : !rows_ring
      %kv_full = tile.mbarrier_alloc : !bars1
      %qo_full = tile.mbarrier_alloc : !qobars
      %qo_empty = tile.mbarrier_alloc : !qobars
      %first = arith.cmpi eq, %tid, %c0 : index
      // A Q/dO stage is released by all 256 consumer threads: each reads
      // the stage's nlse and ndelta with generic loads.
      %consumer_threads = arith.constant 256 : i32
      %qo_tma = arith.muli %chunks, %c2_i32 : i32
      // The Q and dO copies, and one arrival expecting nlse's and ndelta's bytes.
      %c1_i32 = arith.constant 1 : i32
      %qo_copies = arith.addi %qo_tma, %c1_i32 : i32
      %row_bytes = arith.constant #rows_bytes
      %rows_bytes = arith.muli %row_bytes, %c2_i32 : i32
      scf.if %first {
        tile.mbarrier_init %kv_full[%c0], %kv_copies : !bars1
        scf.for %s = %c0 to %c_stages step %c1 {
          tile.mbarrier_init %qo_full[%s], %qo_copies : !qobars
          tile.mbarrier_init %qo_empty[%s], %consumer_threads : !qobars
        }
      }
      gpu.barrier
      // A block past its packed sequence's keys loads and stores nothing.
      %loads = arith.andi %first, %block_live : i1
      tile.warp_specialize producer(registers = 24) {
        scf.if %loads {
          tile.tma_copy %k[%bt, %hk, %krow, %c0] to %sk_[%c0, %c0], %kv_full[%c0] : !d128, !tile128, !bars1
          tile.tma_copy %v[%bt, %hk, %krow, %c0] to %sv_[%c0, %c0], %kv_full[%c0] : !d128, !tile128, !bars1
          scf.if %two_chunks {
            tile.tma_copy %k[%bt, %hk, %krow, %c64] to %sk_[%c0, %c1], %kv_full[%c0] : !d128, !tile128, !bars1
            tile.tma_copy %v[%bt, %hk, %krow, %c64] to %sv_[%c0, %c1], %kv_full[%c0] : !d128, !tile128, !bars1
          }
          %p:2 = scf.for %step = %c0 to %steps step %c1
              iter_args(%s = %c0, %ph = %true) -> (index, i1) {
            %g = arith.divui %step, %tiles_left : index
            %it = arith.remui %step, %tiles_left : index
            %i = arith.addi %i_start, %it : index
            %hk_g = arith.muli %hk, %group : index
            %h = arith.addi %hk_g, %g : index
            %q0 = arith.muli %i, %qt : index
            %qrow = arith.addi %qrow0, %q0 : index
            tile.mbarrier_wait_parity %qo_empty[%s], %ph : !qobars
            // The tile's T nlse and ndelta (whole row tiles).
            %h_rows = arith.muli %h, %pitch : index
            %base = arith.addi %rows0, %h_rows : index
            %at = arith.addi %base, %q0 : index
            %tx = tile.mbarrier_arrive_expect_tx %qo_full[%s], %rows_bytes : !qobars -> !tile.mbarrier_token
            tile.bulk_copy_global_to_shared %nlse[%at] to %slse[%s, %c0], %row_bytes, %qo_full[%s]
                : memref<?xf32> to !rows_ring, !qobars
            tile.bulk_copy_global_to_shared %ndelta[%at] to %sdelta[%s, %c0], %row_bytes, %qo_full[%s]
                : memref<?xf32> to !rows_ring, !qobars
            tile.tma_copy %q[%bt, %h, %qrow, %c0] to %sq_[%s, %c0], %qo_full[%s] : !dqo, !qo_ring, !qobars
            tile.tma_copy %do[%bt, %h, %qrow, %c0] to %sdo_[%s, %c0], %qo_full[%s] : !dqo, !qo_ring, !qobars
            scf.if %two_chunks {
              tile.tma_copy %q[%bt, %h, %qrow, %c64] to %sq_[%s, %c1], %qo_full[%s] : !dqo, !qo_ring, !qobars
              tile.tma_copy %do[%bt, %h, %qrow, %c64] to %sdo_[%s, %c1], %qo_full[%s] : !dqo, !qo_ring, !qobars
            }
            %next = arith.addi %s, %c1 : index
            %wrap = arith.cmpi eq, %next, %c_stages : index
            %ns = arith.select %wrap, %c0, %next : index
            %nph = arith.xori %ph, %wrap : i1
            scf.yield %ns, %nph : index, i1
          }
        }
      } consumers(2, registers = 240) {
      ^bb0(%wg: index):
        %row = arith.muli %wg, %c64 : index
        %lane = arith.remui %tid, %c128 : index
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero_s = arith.constant dense<0.0> : !scores
        %zero_g = arith.constant dense<0.0> : !grad
        %zero_q = arith.constant dense<0.0> : !dq_part
        %ninf_s = arith.constant dense<0xFF800000> : !scores
        %c_s = vector.broadcast %scale_log2 : f32 to !scores
        %scale_g = vector.broadcast %scale : f32 to !grad
        %scale_q = vector.broadcast %scale : f32 to !dq_part
        // dS^T's stage is complete once both warpgroups meet here.
        %ds_ready = arith.constant 9 : i32
        // This warpgroup's 64 keys, and its part of dQ: columns dq_c0 ..
        // (the K tile's chunk and column where they start) of the queries
        // dq_r0 .. of the tile (dS's span dq_span).
        %k0 = arith.addi %n0, %row : index
        %dq_cols = arith.constant #dq_cols
        %dq_c0 = arith.muli %wg, %dq_cols : index
        %dq_row_step = arith.constant #dq_row_step
        %dq_r0 = arith.muli %wg, %dq_row_step : index
        %dq_span = arith.divui %dq_r0, %c64 : index
        %k0_i32 = arith.index_cast %k0 : index to i32
        %k0_v = vector.broadcast %k0_i32 : i32 to !scores_i
        %sk_i32 = arith.index_cast %len_k : index to i32
        %sk_v = vector.broadcast %sk_i32 : i32 to !scores_i
        %hi_i32 = arith.index_cast %hi : index to i32
        %hi_v = vector.broadcast %hi_i32 : i32 to !scores_i
        %k_end = arith.addi %k0, %c64 : index
        %past_keys = arith.cmpi ugt, %k_end, %len_k : index
        scf.if %block_live {
          tile.mbarrier_wait_parity %kv_full[%c0], %false : !bars1
        }
        %r:4 = scf.for %step = %c0 to %steps step %c1
            iter_args(%dk_acc = %zero_g, %dv_acc = %zero_g, %s = %c0, %ph = %false)
            -> (!grad, !grad, index, i1) {
          %g = arith.divui %step, %tiles_left : index
          %it = arith.remui %step, %tiles_left : index
          %i = arith.addi %i_start, %it : index
          %hk_g = arith.muli %hk, %group : index
          %h = arith.addi %hk_g, %g : index
          %q0 = arith.muli %i, %qt : index
          %d = arith.remui %step, %c2 : index
          // The T queries' -lse and -delta from the stage, as columns (a
          // zero row stride; past Sq: -inf and 0).
          %rows_at = arith.muli %s, %c128 : index
          %nlse_c = memref.reinterpret_cast %slse to offset: [%rows_at], sizes: [64, 128],
              strides: [0, 1] : !rows_ring to !srows
          %ndelta_c = memref.reinterpret_cast %sdelta to offset: [%rows_at], sizes: [64, 128],
              strides: [0, 1] : !rows_ring to !srows
          tile.mbarrier_wait_parity %qo_full[%s], %ph : !qobars
          // S^T = K Q^T and dP^T = V dO^T of this warpgroup's keys.
          %scores = tile.warpgroup_mma %sk_[%c0, %c0, %row, %c0], %sq_[%s, %c0, %c0, %c0], %zero_s
              {shape = #scores_t, wait = 1 : i32} : !tile128, !qo_ring, !scores
          %dp = tile.warpgroup_mma %sv_[%c0, %c0, %row, %c0], %sdo_[%s, %c0, %c0, %c0], %zero_s
              {shape = #scores_t, wait = 0 : i32} : !tile128, !qo_ring, !scores
          // Keys past Sk, and keys after the diagonal of some query.
          %q_hi = arith.addi %q0, %hi : index
          %over = arith.cmpi sgt, %k_end, %q_hi : index
          %needs_mask = arith.ori %past_keys, %over : i1
          %masked = scf.if %needs_mask -> !scores {
            %rows = tile.warpgroup_iota {dim = 0 : i64, shape = #scores_tile} : !scores_i
            %cols = tile.warpgroup_iota {dim = 1 : i64, shape = #scores_tile} : !scores_i
            %keys = arith.addi %rows, %k0_v : !scores_i
            %q0_i32 = arith.index_cast %q0 : index to i32
            %q0_v = vector.broadcast %q0_i32 : i32 to !scores_i
            %queries = arith.addi %cols, %q0_v : !scores_i
            %in_keys = arith.cmpi slt, %keys, %sk_v : !scores_i
            %last_key = arith.addi %queries, %hi_v : !scores_i
            %seen = arith.cmpi sle, %keys, %last_key : !scores_i
            %valid = arith.andi %in_keys, %seen : !scores_b
            %sel = arith.select %valid, %scores, %ninf_s : !scores_b, !scores
            scf.yield %sel : !scores
          } else {
            scf.yield %scores : !scores
          }
          %s_scaled = arith.mulf %masked, %c_s : !scores
          %exponent = tile.warpgroup_add %s_scaled, %nlse_c[%c0, %c0] {shape = #scores_tile}
              : !srows, !scores
          %probs = math.exp2 %exponent fastmath<afn> : !scores
          %dp_d = tile.warpgroup_add %dp, %ndelta_c[%c0, %c0] {shape = #scores_tile}
              : !srows, !scores
          %ds = arith.mulf %probs, %dp_d : !scores
          %p16 = arith.truncf %probs : !scores to !scores_e
          %ds16 = arith.truncf %ds : !scores to !scores_e
          %dv_next = tile.warpgroup_mma_rs %p16, %sdo_[%s, %c0, %c0, %c0], %dv_acc
              {shape = #dkv_mma, wait = 1 : i32, transpose_b}
              : !scores_e, !qo_ring, !grad
          // This warpgroup's 64 keys of dS^T into stage d, span by span (its
          // last readers, step - 2's dQ products, finished before both
          // warpgroups met at step - 1), fenced for wgmma's reads.
          tile.warpgroup_mma_store %ds, %sds_[%d, %c0, %row, %c0] {shape = #scores_tile}
              : !scores, !ds_ring
          tile.fence_proxy_async shared_cta
          tile.named_barrier_sync %ds_ready, 256
          // dQ's part over the 128 keys. step / steps is 0, but not
          // loop-invariant to LLVM: K's descriptors are rebuilt each step
          // instead of held in registers through the loop (which spilled).
          %step1 = arith.addi %step, %c1 : index
          %zero = arith.divui %step, %steps : index
          %dq_c0_step = arith.addi %dq_c0, %zero : index
          %dq_chunk = arith.divui %dq_c0_step, %c64 : index
          %dq_col = arith.remui %dq_c0_step, %c64 : index
          %dq = tile.warpgroup_mma %sds_[%d, %dq_span, %c0, %c0], %sk_[%c0, %dq_chunk, %c0, %dq_col], %zero_q
              {shape = #dq_mma, wait = 1 : i32, transpose_a, transpose_b}
              : !ds_ring, !tile128, !dq_part
          // dK after dQ: dQ's reduction below runs while dK's MMA does.
          %dk_next = tile.warpgroup_mma_rs %ds16, %sq_[%s, %c0, %c0, %c0], %dk_acc
              {shape = #dkv_mma, wait = 1 : i32, transpose_b}
              : !scores_e, !qo_ring, !grad
          %dq_scaled = arith.mulf %dq, %scale_q : !dq_part
          %wg_step = arith.minui %wg, %step1 : index
          %dq_q0 = arith.addi %q0, %dq_r0 : index
          %dq_row = arith.addi %qrow0, %dq_q0 : index
          tile.warpgroup_tma_store %dq_scaled, %dq_staging[%wg_step] to %dq_acc[%bt, %h, %dq_row, %dq_c0]
              reduce add {shape = #dq_rows}
              : !dq_part, !dq_staging, !dqacc
          // Every consumer thread releases the stage once dK is done: its
          // own reads of the stage's nlse and delta (generic loads) come
          // before its arrival.
          tile.wgmma_wait_group 0
          %tok = tile.mbarrier_arrive %qo_empty[%s] : !qobars -> !tile.mbarrier_token
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c_stages : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %dk_next, %dv_next, %ns, %nph : !grad, !grad, index, i1
        }
        %dk_out = arith.mulf %r#0, %scale_g : !grad
        scf.if %packed {
          // Added into the zeroed gradients: the box's rows past the
          // sequence's last key add exact zeros to the next sequence's.
          scf.if %block_live {
            %krow_wg = arith.addi %krow0, %k0 : index
            tile.warpgroup_tma_store %dk_out, %staging[%wg] to %dk[%bt, %hk, %krow_wg, %c0]
                reduce add {shape = #grad_rows} : !grad, !staging, !d64
            tile.warpgroup_tma_store %r#1, %staging[%wg] to %dv[%bt, %hk, %krow_wg, %c0]
                reduce add {shape = #grad_rows} : !grad, !staging, !d64
          }
        } else {
          tile.warpgroup_tma_store %dk_out, %staging[%wg] to %dk[%b, %hk, %k0, %c0] {shape = #grad_rows}
              : !grad, !staging, !d64
          tile.warpgroup_tma_store %r#1, %staging[%wg] to %dv[%b, %hk, %k0, %c0] {shape = #grad_rows}
              : !grad, !staging, !d64
        }
        scf.if %signals {
          tile.bulk_wait_group 0
        }
      }
      gpu.return
    }
  }
}
