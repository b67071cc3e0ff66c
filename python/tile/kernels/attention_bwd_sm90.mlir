// Fused attention backward in tile IR (sm_90a), FlashAttention-2's
// algorithm in two deterministic kernels (no atomics): for Q (B, H, Sq, D),
// K and V (B, Hkv, Sk, D), the forward's output O and its gradient dO (B, H,
// Sq, D), and per query row nlse = -(c m + log2 l), the forward's negated
// log2 sum-exp (c = scale log2(e); -inf for a row that saw no key), and
// ndelta = -rowsum(dO * O) (float32, the rows of head b H + h at (b H + h)
// pitch, pitch = Sq rounded up to whole 64-query tiles at least (128:
// tile.ops.attention_backward.ROW_TILE); past Sq -inf and 0:
// tile.ops.attention_backward_rows; packed sequences below):
//   P  = exp2(c S + nlse)          S = Q K^T, masked keys -inf
//   dS = P * (dP + ndelta)         dP = dO V^T
//   dQ = scale dS K      (@attention_bwd_dq_d128: one CTA a 128-row query
//                         tile, the key blocks streamed past it)
//   dK = scale dS^T Q, dV = P^T dO   (@attention_bwd_dkdv_d128: one CTA a
//                         128-key block of a KV head, the query tiles of the
//                         head's group streamed past it: GQA's dK and dV sum
//                         over the group's query heads)
// Each kernel: warpgroup 0 (one thread) loads with TMA, two consumer
// warpgroups of 64 rows each run wgmma; f32 accumulation, the gradients
// rounded once to the inputs' type and stored by TMA (rows past the ends
// clipped). Causal masks: top-left (query i sees keys j <= i) or, with
// %bottom_right, j <= i + Sk - Sq; blocks no query (key) of a tile sees are
// skipped. D = 128 as written; D = 64 by redefining the head-dimension
// aliases (tile.ops.attention_backward.head_dim_aliases). Packed sequences
// (%varlen) as attention_bwd_fused_sm90.mlir takes them: offsets and
// lengths from cu_q and cu_k, %sq and %sk the longest sequence's, the
// rows of nlse and ndelta of head h from h %pitch + start (start: cu_q[b] +
// 128 b rounded down to a row tile, FlashAttention's varlen layout: whole
// row tiles for every sequence in H (total_q + 128 B) rows), the
// gradients added by TMA reductions into zeroed ones (what a box's rows
// past a sequence add to the next one's is zero: each row's one nonzero
// value is added exactly, the bits the same run to run).
//
//   tile-opt python/tile/kernels/attention_bwd_sm90.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32"

// The element type of Q, K, V, O, dO and the gradients (f16 or bf16).
!e = bf16
// 128-row boxes (the dQ kernel's Q and dO tiles, both kernels' K and V
// blocks), 64-row boxes (the dK/dV kernel's Q and dO tiles, every store).
!d128 = !tile.tma_desc<memref<?x?x?x?x!e>, box = [1, 1, 128, 64], swizzle = b128>
!d64 = !tile.tma_desc<memref<?x?x?x?x!e>, box = [1, 1, 64, 64], swizzle = b128>
// The head dimension D and what depends on it (128 as written;
// tile.ops.attention_backward.head_dim_aliases): a consumer's 64 x D
// gradient (!grad), the D / 64 chunks of 64 columns (128-byte swizzle
// spans) of the tiles, rings (K/V of the dQ kernel: 64 KB stages of
// 128-key blocks; Q/dO of the dK/dV kernel: stages of 64-row tiles) and
// staging buffers, the ring depths and the MMA shapes.
!grad = vector<64xf32>
!tile128 = memref<1x2x128x64x!e, 3>
!ring128 = memref<2x2x128x64x!e, 3>
!qo_ring = memref<3x2x64x64x!e, 3>
!staging = memref<2x2x64x64x!e, 3>
#scores = array<i64: 64, 128, 128>
#scores_t = array<i64: 64, 64, 128>
#dq_mma = array<i64: 64, 128, 128>
#dkv_mma = array<i64: 64, 128, 64>
#grad_rows = array<i64: 64, 128>
#head_dim = 128 : index
#chunks = 2 : i32
#kv_stages = 2 : index
#qo_stages = 3 : index
!kvbars = !tile.mbarrier<count = 2>
!qobars = !tile.mbarrier<count = 3>
// The dK/dV kernel's stages of the query tile's nlse or ndelta (64 each).
!rows_ring = memref<3x64xf32, 3>
!srows = memref<64x64xf32, strided<[0, 1], offset: ?>, 3>
!bars1 = !tile.mbarrier<count = 1>
// Packed sequences: the halvings of a dQ CTA's search for its sequence
// (tile.ops.attention.PACKED_HALVINGS: 2^#halvings sequences a call).
#halvings = 16 : index
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // dQ of query tile gridDim.y - 1 - blockIdx.y (128 rows) of head
    // blockIdx.x (b H + h).
    gpu.func @attention_bwd_dq_d128(%q: !d128, %k: !d128, %v: !d128, %do: !d128, %dq: !d64,
                                    %nlse: memref<?xf32>, %ndelta: memref<?xf32>,
                                    %heads: index, %group: index, %sq: index, %sk: index,
                                    %pitch: index, %scale_log2: f32, %scale: f32,
                                    %causal: i1, %bottom_right: i1, %varlen: i1,
                                    %cu_q: memref<?xi32>, %cu_k: memref<?xi32>, %total_q: index,
                                    %total_k: index) kernel
        // .minnctapersm 1: ptxas applies setmaxnreg (else C7508 at D = 64,
        // whose consumers ran 3-4% slower).
        attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
      // Launched as a programmatic dependent: every access of global memory
      // after the grid before this one (T-PDL-1, T-PDL-2; it reads its offsets first).
      tile.grid_dependency_wait
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %c2 = arith.constant 2 : index
      %c_halvings = arith.constant #halvings
      %c_stages = arith.constant #kv_stages
      %chunks = arith.constant #chunks
      %c2_i32 = arith.constant 2 : i32
      %two_chunks = arith.cmpi eq, %chunks, %c2_i32 : i32
      %qd_copies = arith.muli %chunks, %c2_i32 : i32
      %consumers = arith.constant 2 : i32
      %false = arith.constant false
      %true = arith.constant true
      // Packed sequences (%varlen); tile.ops.attention_backward's dense
      // variants fold this switch to false, and the packed path away.
      %packed = arith.andi %varlen, %true : i1
      %tid = gpu.thread_id x
      // Heads along x, query tiles along y from the last: causal tiles
      // with the most keys start first.
      %bh = gpu.block_id x
      %mt_rev = gpu.block_id y
      %tiles = gpu.grid_dim y
      %last_tile = arith.subi %tiles, %c1 : index
      %mt_grid = arith.subi %last_tile, %mt_rev : index
      %b_grid = arith.divui %bh, %heads : index
      %h_grid = arith.remui %bh, %heads : index
      // Packed sequences: heads along x and, along y, the T query tiles of
      // FlashAttention's varlen layout (sequence b's from tile (cu_q[b] +
      // 128 b) / 128), a CTA per tile that exists, not B max_seqlen_q / 128
      // a head; tile u = T - 1 - y finds its sequence by a binary search of
      // the tiles' starts (B = the offsets - 1, at most 2^#halvings).
      %b, %h, %mt = scf.if %packed -> (index, index, index) {
        %offsets = memref.dim %cu_q, %c0 : memref<?xi32>
        %seqs = arith.subi %offsets, %c1 : index
        %found:2 = scf.for %halving = %c0 to %c_halvings step %c1
            iter_args(%lo = %c0, %hi = %seqs) -> (index, index) {
          %span = arith.subi %hi, %lo : index
          %more = arith.cmpi ugt, %span, %c1 : index
          %lo_next, %hi_next = scf.if %more -> (index, index) {
            %sum = arith.addi %lo, %hi : index
            %mid = arith.divui %sum, %c2 : index
            %mid_i32 = memref.load %cu_q[%mid] : memref<?xi32>
            %mid_raw = arith.index_cast %mid_i32 : i32 to index
            %mid_pos = arith.maxsi %mid_raw, %c0 : index
            %mid_q0 = arith.minsi %mid_pos, %total_q : index
            %mid_rows = arith.muli %mid, %c128 : index
            %mid_at = arith.addi %mid_q0, %mid_rows : index
            %mid_tile = arith.divui %mid_at, %c128 : index
            %before = arith.cmpi ule, %mid_tile, %mt_grid : index
            %lo_mid = arith.select %before, %mid, %lo : index
            %hi_mid = arith.select %before, %hi, %mid : index
            scf.yield %lo_mid, %hi_mid : index, index
          } else {
            scf.yield %lo, %hi : index, index
          }
          scf.yield %lo_next, %hi_next : index, index
        }
        %seq_i32 = memref.load %cu_q[%found#0] : memref<?xi32>
        %seq_raw = arith.index_cast %seq_i32 : i32 to index
        %seq_pos = arith.maxsi %seq_raw, %c0 : index
        %seq_q0 = arith.minsi %seq_pos, %total_q : index
        %seq_rows = arith.muli %found#0, %c128 : index
        %seq_at = arith.addi %seq_q0, %seq_rows : index
        %seq_tile = arith.divui %seq_at, %c128 : index
        // The tile of its sequence (before the first one's, bad cu_seqlens:
        // past every sequence, no work).
        %after = arith.cmpi uge, %mt_grid, %seq_tile : index
        %tile_in = arith.subi %mt_grid, %seq_tile : index
        %tile_packed = arith.select %after, %tile_in, %tiles : index
        scf.yield %found#0, %bh, %tile_packed : index, index, index
      } else {
        scf.yield %b_grid, %h_grid, %mt_grid : index, index, index
      }
      %hk = arith.divui %h, %group : index
      %m0 = arith.muli %mt, %c128 : index
      // The sequence: the whole of Sq and Sk, or packed sequence b (its
      // offsets clamped to the packed rows and to the longest sequence).
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
      // The tensor maps' batch coordinate (0 for packed sequences).
      %bt = arith.select %packed, %c0, %b : index
      %qrow = arith.addi %qrow0, %m0 : index
      // Key j is seen by query i where j < Sk and, causal, j <= i + diag;
      // a tile past its packed sequence's queries sees none.
      %sk_sq = arith.subi %len_k, %len_q : index
      %diag = arith.select %bottom_right, %sk_sq, %c0 : index
      %hi = arith.select %causal, %diag, %len_k : index
      %m_end = arith.addi %m0, %c128 : index
      %key_hi = arith.addi %m_end, %hi : index
      %key_end_hi = arith.minsi %key_hi, %len_k : index
      %key_end_pos = arith.maxsi %key_end_hi, %c0 : index
      %past_sequence = arith.cmpi uge, %m0, %len_q : index
      %tile_past = arith.andi %packed, %past_sequence : i1
      %tile_live = arith.xori %tile_past, %true : i1
      %key_end = arith.select %tile_live, %key_end_pos, %c0 : index
      %key_end127 = arith.addi %key_end, %c127 : index
      %blocks = arith.divui %key_end127, %c128 : index
      %sq_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !tile128
      %sdo_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !tile128
      %sk_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !ring128
      %sv_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !ring128
      %staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !staging
      %qd_full = tile.mbarrier_alloc : !bars1
      %k_full = tile.mbarrier_alloc : !kvbars
      %v_full = tile.mbarrier_alloc : !kvbars
      %k_empty = tile.mbarrier_alloc : !kvbars
      %v_empty = tile.mbarrier_alloc : !kvbars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.mbarrier_init %qd_full[%c0], %qd_copies : !bars1
        scf.for %s = %c0 to %c_stages step %c1 {
          tile.mbarrier_init %k_full[%s], %chunks : !kvbars
          tile.mbarrier_init %v_full[%s], %chunks : !kvbars
          tile.mbarrier_init %k_empty[%s], %consumers : !kvbars
          tile.mbarrier_init %v_empty[%s], %consumers : !kvbars
        }
      }
      gpu.barrier
      // A tile past its packed sequence's queries loads and stores nothing.
      %loads = arith.andi %first, %tile_live : i1
      tile.warp_specialize producer(registers = 24) {
        scf.if %loads {
          tile.tma_copy %q[%bt, %h, %qrow, %c0] to %sq_[%c0, %c0], %qd_full[%c0] : !d128, !tile128, !bars1
          tile.tma_copy %do[%bt, %h, %qrow, %c0] to %sdo_[%c0, %c0], %qd_full[%c0] : !d128, !tile128, !bars1
          scf.if %two_chunks {
            tile.tma_copy %q[%bt, %h, %qrow, %c64] to %sq_[%c0, %c1], %qd_full[%c0] : !d128, !tile128, !bars1
            tile.tma_copy %do[%bt, %h, %qrow, %c64] to %sdo_[%c0, %c1], %qd_full[%c0] : !d128, !tile128, !bars1
          }
          %p:2 = scf.for %j = %c0 to %blocks step %c1
              iter_args(%s = %c0, %ph = %true) -> (index, i1) {
            %n0 = arith.muli %j, %c128 : index
            %krow = arith.addi %krow0, %n0 : index
            tile.mbarrier_wait_parity %k_empty[%s], %ph : !kvbars
            tile.tma_copy %k[%bt, %hk, %krow, %c0] to %sk_[%s, %c0], %k_full[%s] : !d128, !ring128, !kvbars
            scf.if %two_chunks {
              tile.tma_copy %k[%bt, %hk, %krow, %c64] to %sk_[%s, %c1], %k_full[%s] : !d128, !ring128, !kvbars
            }
            tile.mbarrier_wait_parity %v_empty[%s], %ph : !kvbars
            tile.tma_copy %v[%bt, %hk, %krow, %c0] to %sv_[%s, %c0], %v_full[%s] : !d128, !ring128, !kvbars
            scf.if %two_chunks {
              tile.tma_copy %v[%bt, %hk, %krow, %c64] to %sv_[%s, %c1], %v_full[%s] : !d128, !ring128, !kvbars
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
        %zero_s = arith.constant dense<0.0> : vector<64xf32>
        %zero_g = arith.constant dense<0.0> : !grad
        %ninf_s = arith.constant dense<0xFF800000> : vector<64xf32>
        %c_s = vector.broadcast %scale_log2 : f32 to vector<64xf32>
        %scale_g = vector.broadcast %scale : f32 to !grad
        %r0 = arith.addi %m0, %row : index
        // The rows' -lse and -delta (a row past Sq reads inside the array:
        // its Q and dO are zeros and its dQ is not stored).
        %h_rows = arith.muli %h, %pitch : index
        %head_rows = arith.addi %rows0, %h_rows : index
        %at = arith.addi %head_rows, %r0 : index
        %nlse_r = tile.warpgroup_rows %nlse[%at] {shape = array<i64: 64, 128>}
            : memref<?xf32> -> vector<2xf32>
        %ndelta_r = tile.warpgroup_rows %ndelta[%at] {shape = array<i64: 64, 128>}
            : memref<?xf32> -> vector<2xf32>
        %sk_i32 = arith.index_cast %len_k : index to i32
        %sk_v = vector.broadcast %sk_i32 : i32 to vector<64xi32>
        %hi_i32 = arith.index_cast %hi : index to i32
        %hi_v = vector.broadcast %hi_i32 : i32 to vector<64xi32>
        %r0_i32 = arith.index_cast %r0 : index to i32
        %r0_v = vector.broadcast %r0_i32 : i32 to vector<64xi32>
        %r0_hi = arith.addi %r0, %hi : index
        %r0_hi1 = arith.addi %r0_hi, %c1 : index
        scf.if %tile_live {
          tile.mbarrier_wait_parity %qd_full[%c0], %false : !bars1
        }
        %r:3 = scf.for %j = %c0 to %blocks step %c1
            iter_args(%acc = %zero_g, %s = %c0, %ph = %false) -> (!grad, index, i1) {
          %n0 = arith.muli %j, %c128 : index
          %n_end = arith.addi %n0, %c128 : index
          tile.mbarrier_wait_parity %k_full[%s], %ph : !kvbars
          %scores = tile.warpgroup_mma %sq_[%c0, %c0, %row, %c0], %sk_[%s, %c0, %c0, %c0], %zero_s
              {shape = #scores, wait = 1 : i32} : !tile128, !ring128, vector<64xf32>
          tile.mbarrier_wait_parity %v_full[%s], %ph : !kvbars
          // dP runs while P is computed (S is done: wait depth 1).
          %dp = tile.warpgroup_mma %sdo_[%c0, %c0, %row, %c0], %sv_[%s, %c0, %c0, %c0], %zero_s
              {shape = #scores, wait = 1 : i32} : !tile128, !ring128, vector<64xf32>
          // Keys past Sk, and after the diagonal of some row.
          %past_keys = arith.cmpi ugt, %n_end, %len_k : index
          %over = arith.cmpi sgt, %n_end, %r0_hi1 : index
          %needs_mask = arith.ori %past_keys, %over : i1
          %masked = scf.if %needs_mask -> vector<64xf32> {
            %cols = tile.warpgroup_iota {dim = 1 : i64, shape = array<i64: 64, 128>} : vector<64xi32>
            %rows = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 64, 128>} : vector<64xi32>
            %qrows = arith.addi %rows, %r0_v : vector<64xi32>
            %n0_i32 = arith.index_cast %n0 : index to i32
            %n0_v = vector.broadcast %n0_i32 : i32 to vector<64xi32>
            %keys = arith.addi %cols, %n0_v : vector<64xi32>
            %in_keys = arith.cmpi slt, %keys, %sk_v : vector<64xi32>
            %last_key = arith.addi %qrows, %hi_v : vector<64xi32>
            %seen = arith.cmpi sle, %keys, %last_key : vector<64xi32>
            %valid = arith.andi %in_keys, %seen : vector<64xi1>
            %sel = arith.select %valid, %scores, %ninf_s : vector<64xi1>, vector<64xf32>
            scf.yield %sel : vector<64xf32>
          } else {
            scf.yield %scores : vector<64xf32>
          }
          %nlse_b = tile.warpgroup_broadcast_rows %nlse_r {shape = array<i64: 64, 128>}
              : vector<2xf32> -> vector<64xf32>
          %exponent = math.fma %masked, %c_s, %nlse_b : vector<64xf32>
          %probs = math.exp2 %exponent fastmath<afn> : vector<64xf32>
          // dP is done: the V stage is free.
          tile.wgmma_wait_group 0
          scf.if %signals {
            %vtok = tile.mbarrier_arrive %v_empty[%s] : !kvbars -> !tile.mbarrier_token
          }
          %ndelta_b = tile.warpgroup_broadcast_rows %ndelta_r {shape = array<i64: 64, 128>}
              : vector<2xf32> -> vector<64xf32>
          %dp_d = arith.addf %dp, %ndelta_b : vector<64xf32>
          %ds = arith.mulf %probs, %dp_d : vector<64xf32>
          %ds16 = arith.truncf %ds : vector<64xf32> to vector<64x!e>
          %acc_next = tile.warpgroup_mma_rs %ds16, %sk_[%s, %c0, %c0, %c0], %acc
              {shape = #dq_mma, wait = 0 : i32, transpose_b}
              : vector<64x!e>, !ring128, !grad
          scf.if %signals {
            %ktok = tile.mbarrier_arrive %k_empty[%s] : !kvbars -> !tile.mbarrier_token
          }
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c_stages : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %acc_next, %ns, %nph : !grad, index, i1
        }
        %dq_acc = arith.mulf %r#0, %scale_g : !grad
        scf.if %packed {
          // Added into the zeroed dQ: the box's rows past the sequence's
          // last query (nlse -inf: P = 0) add exact zeros.
          scf.if %tile_live {
            %qrow_wg = arith.addi %qrow0, %r0 : index
            tile.warpgroup_tma_store %dq_acc, %staging[%wg] to %dq[%bt, %h, %qrow_wg, %c0]
                reduce add {shape = #grad_rows} : !grad, !staging, !d64
          }
        } else {
          tile.warpgroup_tma_store %dq_acc, %staging[%wg] to %dq[%b, %h, %r0, %c0] {shape = #grad_rows}
              : !grad, !staging, !d64
        }
        scf.if %signals {
          tile.bulk_wait_group 0
        }
      }
      gpu.return
    }

    // dK and dV of key block blockIdx.y (128 keys) of KV head blockIdx.x
    // (b Hkv + hk), over the query tiles of its group's heads.
    gpu.func @attention_bwd_dkdv_d128(%q: !d64, %k: !d128, %v: !d128, %do: !d64, %dk: !d64,
                                      %dv: !d64, %nlse: memref<?xf32>, %ndelta: memref<?xf32>,
                                      %heads: index, %group: index, %sq: index, %sk: index,
                                      %pitch: index, %scale_log2: f32, %scale: f32,
                                      %causal: i1, %bottom_right: i1, %varlen: i1,
                                      %cu_q: memref<?xi32>, %cu_k: memref<?xi32>,
                                      %total_q: index, %total_k: index) kernel
        // .minnctapersm 1: ptxas applies setmaxnreg (else C7508 at D = 64,
        // whose consumers ran 3-4% slower).
        attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
      // Launched as a programmatic dependent: every access of global memory
      // after the grid before this one (T-PDL-1, T-PDL-2; it reads its offsets first).
      tile.grid_dependency_wait
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c_stages = arith.constant #qo_stages
      %chunks = arith.constant #chunks
      %c2_i32 = arith.constant 2 : i32
      %two_chunks = arith.cmpi eq, %chunks, %c2_i32 : i32
      %kv_copies = arith.muli %chunks, %c2_i32 : i32
      %consumers = arith.constant 2 : i32
      %false = arith.constant false
      %true = arith.constant true
      // Packed sequences (%varlen); tile.ops.attention_backward's dense
      // variants fold this switch to false, and the packed path away.
      %packed = arith.andi %varlen, %true : i1
      %tid = gpu.thread_id x
      // KV heads along x, key blocks along y: the blocks the most queries
      // see (the first, causal) start first.
      %bhk = gpu.block_id x
      %nt = gpu.block_id y
      %kv_heads = arith.divui %heads, %group : index
      %b = arith.divui %bhk, %kv_heads : index
      %hk = arith.remui %bhk, %kv_heads : index
      %n0 = arith.muli %nt, %c128 : index
      // The sequence: the whole of Sq and Sk, or packed sequence b (its
      // offsets clamped to the packed rows and to the longest sequence).
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
      // The tensor maps' batch coordinate (0 for packed sequences).
      %bt = arith.select %packed, %c0, %b : index
      %krow = arith.addi %krow0, %n0 : index
      // Query i sees key j where j <= i + diag (causal): the block's first
      // key is seen from query n0 - diag on.
      %sk_sq = arith.subi %len_k, %len_q : index
      %diag = arith.select %bottom_right, %sk_sq, %c0 : index
      %hi = arith.select %causal, %diag, %len_k : index
      %first_q_raw = arith.subi %n0, %hi : index
      %first_q = arith.maxsi %first_q_raw, %c0 : index
      %sq63 = arith.addi %len_q, %c63 : index
      %tiles_q = arith.divui %sq63, %c64 : index
      %i_first = arith.divui %first_q, %c64 : index
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
      %staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !staging
      %slse = tile.shared_alloc dynamic : !rows_ring
      %sdelta = tile.shared_alloc dynamic : !rows_ring
      %kv_full = tile.mbarrier_alloc : !bars1
      %qo_full = tile.mbarrier_alloc : !qobars
      %qo_empty = tile.mbarrier_alloc : !qobars
      %first = arith.cmpi eq, %tid, %c0 : index
      // A Q/dO stage is released by all 256 consumer threads (see below).
      %consumer_threads = arith.constant 256 : i32
      %qo_tma = arith.muli %chunks, %c2_i32 : i32
      // The Q and dO copies, and one arrival expecting nlse's and ndelta's bytes.
      %c1_i32 = arith.constant 1 : i32
      %qo_copies = arith.addi %qo_tma, %c1_i32 : i32
      %row_bytes = arith.constant 256 : i32
      %rows_bytes = arith.constant 512 : i32
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
            %q0 = arith.muli %i, %c64 : index
            %qrow = arith.addi %qrow0, %q0 : index
            tile.mbarrier_wait_parity %qo_empty[%s], %ph : !qobars
            // The tile's 64 nlse and ndelta (whole row tiles).
            %h_rows = arith.muli %h, %pitch : index
            %base = arith.addi %rows0, %h_rows : index
            %at = arith.addi %base, %q0 : index
            %tx = tile.mbarrier_arrive_expect_tx %qo_full[%s], %rows_bytes : !qobars -> !tile.mbarrier_token
            tile.bulk_copy_global_to_shared %nlse[%at] to %slse[%s, %c0], %row_bytes, %qo_full[%s]
                : memref<?xf32> to !rows_ring, !qobars
            tile.bulk_copy_global_to_shared %ndelta[%at] to %sdelta[%s, %c0], %row_bytes, %qo_full[%s]
                : memref<?xf32> to !rows_ring, !qobars
            tile.tma_copy %q[%bt, %h, %qrow, %c0] to %sq_[%s, %c0], %qo_full[%s] : !d64, !qo_ring, !qobars
            tile.tma_copy %do[%bt, %h, %qrow, %c0] to %sdo_[%s, %c0], %qo_full[%s] : !d64, !qo_ring, !qobars
            scf.if %two_chunks {
              tile.tma_copy %q[%bt, %h, %qrow, %c64] to %sq_[%s, %c1], %qo_full[%s] : !d64, !qo_ring, !qobars
              tile.tma_copy %do[%bt, %h, %qrow, %c64] to %sdo_[%s, %c1], %qo_full[%s] : !d64, !qo_ring, !qobars
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
        %zero_s = arith.constant dense<0.0> : vector<32xf32>
        %zero_g = arith.constant dense<0.0> : !grad
        %ninf_s = arith.constant dense<0xFF800000> : vector<32xf32>
        %c_s = vector.broadcast %scale_log2 : f32 to vector<32xf32>
        %scale_g = vector.broadcast %scale : f32 to !grad
        // This warpgroup's 64 keys.
        %k0 = arith.addi %n0, %row : index
        %k0_i32 = arith.index_cast %k0 : index to i32
        %k0_v = vector.broadcast %k0_i32 : i32 to vector<32xi32>
        %sk_i32 = arith.index_cast %len_k : index to i32
        %sk_v = vector.broadcast %sk_i32 : i32 to vector<32xi32>
        %hi_i32 = arith.index_cast %hi : index to i32
        %hi_v = vector.broadcast %hi_i32 : i32 to vector<32xi32>
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
          %q0 = arith.muli %i, %c64 : index
          // The 64 queries' -lse and -delta from the stage, as columns (a
          // zero row stride; past Sq: -inf and 0).
          %rows_at = arith.muli %s, %c64 : index
          %nlse_c = memref.reinterpret_cast %slse to offset: [%rows_at], sizes: [64, 64],
              strides: [0, 1] : !rows_ring to !srows
          %ndelta_c = memref.reinterpret_cast %sdelta to offset: [%rows_at], sizes: [64, 64],
              strides: [0, 1] : !rows_ring to !srows
          tile.mbarrier_wait_parity %qo_full[%s], %ph : !qobars
          // S^T = K Q^T and dP^T = V dO^T of this warpgroup's keys.
          %scores = tile.warpgroup_mma %sk_[%c0, %c0, %row, %c0], %sq_[%s, %c0, %c0, %c0], %zero_s
              {shape = #scores_t, wait = 1 : i32} : !tile128, !qo_ring, vector<32xf32>
          %dp = tile.warpgroup_mma %sv_[%c0, %c0, %row, %c0], %sdo_[%s, %c0, %c0, %c0], %zero_s
              {shape = #scores_t, wait = 0 : i32} : !tile128, !qo_ring, vector<32xf32>
          // Keys past Sk, and keys after the diagonal of some query.
          %q_hi = arith.addi %q0, %hi : index
          %over = arith.cmpi sgt, %k_end, %q_hi : index
          %needs_mask = arith.ori %past_keys, %over : i1
          %masked = scf.if %needs_mask -> vector<32xf32> {
            %rows = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 64, 64>} : vector<32xi32>
            %cols = tile.warpgroup_iota {dim = 1 : i64, shape = array<i64: 64, 64>} : vector<32xi32>
            %keys = arith.addi %rows, %k0_v : vector<32xi32>
            %q0_i32 = arith.index_cast %q0 : index to i32
            %q0_v = vector.broadcast %q0_i32 : i32 to vector<32xi32>
            %queries = arith.addi %cols, %q0_v : vector<32xi32>
            %in_keys = arith.cmpi slt, %keys, %sk_v : vector<32xi32>
            %last_key = arith.addi %queries, %hi_v : vector<32xi32>
            %seen = arith.cmpi sle, %keys, %last_key : vector<32xi32>
            %valid = arith.andi %in_keys, %seen : vector<32xi1>
            %sel = arith.select %valid, %scores, %ninf_s : vector<32xi1>, vector<32xf32>
            scf.yield %sel : vector<32xf32>
          } else {
            scf.yield %scores : vector<32xf32>
          }
          %s_scaled = arith.mulf %masked, %c_s : vector<32xf32>
          %exponent = tile.warpgroup_add %s_scaled, %nlse_c[%c0, %c0] {shape = array<i64: 64, 64>}
              : !srows, vector<32xf32>
          %probs = math.exp2 %exponent fastmath<afn> : vector<32xf32>
          %dp_d = tile.warpgroup_add %dp, %ndelta_c[%c0, %c0] {shape = array<i64: 64, 64>}
              : !srows, vector<32xf32>
          %ds = arith.mulf %probs, %dp_d : vector<32xf32>
          %p16 = arith.truncf %probs : vector<32xf32> to vector<32x!e>
          %ds16 = arith.truncf %ds : vector<32xf32> to vector<32x!e>
          %dv_next = tile.warpgroup_mma_rs %p16, %sdo_[%s, %c0, %c0, %c0], %dv_acc
              {shape = #dkv_mma, wait = 1 : i32, transpose_b}
              : vector<32x!e>, !qo_ring, !grad
          %dk_next = tile.warpgroup_mma_rs %ds16, %sq_[%s, %c0, %c0, %c0], %dk_acc
              {shape = #dkv_mma, wait = 0 : i32, transpose_b}
              : vector<32x!e>, !qo_ring, !grad
          // Every consumer thread releases the stage: its own reads of the
          // stage's nlse and delta (generic loads) come before its arrival.
          %tok = tile.mbarrier_arrive %qo_empty[%s] : !qobars -> !tile.mbarrier_token
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c_stages : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %dk_next, %dv_next, %ns, %nph : !grad, !grad, index, i1
        }
        %dk_out = arith.mulf %r#0, %scale_g : !grad
        scf.if %packed {
          // Added into the zeroed gradients, as dQ above.
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
