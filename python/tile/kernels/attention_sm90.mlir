// Fused attention forward in tile IR (sm_90a), FlashAttention's online
// softmax: O = softmax(scale Q K^T [+ causal mask]) V for Q (B, H, Sq, D),
// K and V (B, H, Sk, D), O (B, H, Sq, D), any strides with a contiguous D
// (4-D tensor maps), f16 or bf16 in and out, f32 scores, softmax and
// accumulation; D = 128 as written (@attention_d128), D = 64 by redefining
// the head-dimension aliases below (@attention_d64).
//
// Warp-specialized and persistent: one CTA per SM takes the work units
// (batch, head, 128-row query tile) in pairs p = CTA, CTA + grid, ...: pair
// i of a head is its query tiles T - 1 - i and i, which under the causal
// mask cost T + 1 key blocks together, so the CTAs' shares stay even
// (consecutive tiles of a head also share its K and V in L2). Warpgroup 0 (one
// thread; through a KV cache's block table, one a box) loads the unit's Q
// tile with TMA, then the K and V blocks of 128
// keys into a ring (separate full barriers for K and V, so the scores start
// before V lands; separate empty barriers for K and V, which both
// consumers release: K once its S is done, V once its P V is).
// Warpgroups 1 and 2 each own 64 query rows: per key block,
//   S = Q K^T             tile.warpgroup_mma (K-major K; D over 64-wide chunks)
//   mask                  keys past Sk, and above the diagonal when causal
//                         (tile.warpgroup_iota), only on the blocks that need it
//   m' = max(m, rowmax S) tile.warpgroup_row_reduce <maxnumf>
//   P = exp2(c S - c m')  c = scale log2(e), one FMA and one ex2.approx each
//   l' = l exp2(c m - c m') + rowsum P   (each thread its part of the row)
//   O' = O exp2(c m - c m') + P V   P converted to 16 bits stays in registers:
//                         tile.warpgroup_mma_rs (register A, V MN-major); the
//                         rescale skipped by a warp whose rows' m did not move
// and at the end O / l through the TMA-store epilogue (stmatrix, TMA clips
// rows past Sq). Causal is top-left aligned (query i sees keys j <= i, as
// PyTorch's is_causal): key blocks past the tile's last query are skipped,
// not masked. Consumer warpgroups take turns at the tensor cores
// (FlashAttention-3's ping-pong): each waits at its named barrier before
// issuing a block's Q K^T and hands the turn to the other after issuing its
// P V, so one's softmax runs under the other's MMAs.
//
//   tile-opt python/tile/kernels/attention_sm90.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32"
// (tile.attention in python/tile/ops/attention.py compiles and runs it.)

// The element type of Q, K and V (f16 or bf16; f8E4M3FN in the FP8
// variant) and of O (!eo: !e's, bf16 in the FP8 variant); tile.attention
// compiles its variants by redefining these aliases.
!e = bf16
!eo = bf16
!d4 = !tile.tma_desc<memref<?x?x?x?x!e>, box = [1, 1, 128, 64], swizzle = b128>
!o4 = !tile.tma_desc<memref<?x?x?x?x!eo>, box = [1, 1, 64, 64], swizzle = b128>
// FP8 (tile.attention on e4m3 operands): per (batch, KV head) factors that scale Q
// K^T and V back from their 8-bit quantisation (FlashAttention-3's
// q/k/v_descale), any strides; the 16-bit variants fold them away.
!descale = memref<?x?xf32, strided<[?, ?], offset: ?>>
// The probabilities' exponent offset: P = exp2(c s - c m + #p_offset), 0 as
// written; the FP8 variant's 8 puts P in [0, 256] (e4m3's range reaches
// 448), where 8-bit P keeps more of the small probabilities
// (FlashAttention-3's Max_offset); l carries the same factor, O / l
// cancels it.
#p_offset = 0.0 : f32
!bars2 = !tile.mbarrier<count = 2>
// The head dimension D, 128 as written: tile.attention compiles D = 64 by
// redefining these aliases (tile.ops.attention.head_dim_aliases) and
// renaming @attention_d128. Per consumer thread, O (64 x D rows of f32) is
// !acc; Q tiles (two), K and V rings and the O staging tiles are D / 64
// chunks 64 wide (one 128-byte swizzle span each); the K and V rings take
// 128 KB: two stages of 32 KB blocks for D = 128, four of 16 KB for 64.
// A ring stage is (groups, chunks, #ring_rows, 64): as written (the
// KV-cache variants') 16 groups of 8 rows, each holding its rows of every
// chunk, so that one box of a page fills them (tile.warpgroup_mma's
// b_row_groups, T-WGMMA-6); tile.attention's (tile.ops.attention.ring_aliases) one
// group of 128 rows, each chunk's rows together as one box fills them.
!acc = vector<64xf32>
!qtile = memref<2x2x128x64x!e, 3>
!kvring = memref<2x16x2x8x64x!e, 3>
#ring_rows = 8 : index
!ostage = memref<2x2x64x64x!eo, 3>
!kvbars = !tile.mbarrier<count = 2>
#qk = array<i64: 64, 128, 128>
#pv = array<i64: 64, 128, 128>
#orows = array<i64: 64, 128>
#head_dim = 128 : index
#chunks = 2 : i32
#kv_stages = 2 : index
// The wgmma groups a warpgroup leaves in flight after issuing P_{j-1}
// V_{j-1}, which decides when it hands the tensor cores' turn on: 1 (as
// written: the paged KV-cache variants and D = 64, slower the other way),
// the turn once S_j = Q K_j^T is done; 2 (the other D = 128 variants:
// FlashAttention-3's order, faster so, bench/NOTES.md), the turn right after
// issuing both products, then a wait for S_j alone
// (tile.ops.attention.head_dim_aliases).
#pv_wait = 1 : i32
// The unbounded window edge (tile.ops.attention.UNBOUNDED): a left below it
// is an edge.
#unbounded = 1073741824 : index
// A KV cache's K and V (prefill against a paged cache) through a block
// table, each as (block x %block_heads + head, 8-row group of the page,
// chunk, row of the group, 64): boxes of #box_rows rows (a page of 16 or
// 32 tokens, else 64) with all D / 64 chunks, #kv_boxes of them filling a
// 128-key block's row groups (T-TMA-24). K and V without a table, (B, Hkv,
// Sk, D) in one box a chunk, are !kvd4: as written a placeholder that fits
// the ring (the KV-cache variants fold that path away), tile.attention's
// maps in its variants (ring_aliases), whose ring the page boxes
// then only fit (they fold the cache path away).
!kvpage = !tile.tma_desc<memref<?x?x?x?x?x!e>, box = [1, 8, 2, 8, 64], swizzle = b128>
!kvd4 = !tile.tma_desc<memref<?x?x?x?x!e>, box = [1, 1, 8, 64], swizzle = b128>
#box_rows = 64 : index
#kv_boxes = 2 : index
// Packed sequences: the halvings of a unit's search for its sequence, so
// at most 2^#halvings sequences a call (tile.ops.attention.PACKED_HALVINGS;
// the loop is unrolled, and 16 keep the D = 128 variants spill-free).
#halvings = 16 : index
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // One function for both head dimensions (the aliases above); the copies
    // of a second 64-wide chunk run where %two_chunks (#chunks = 2, D = 128).
    gpu.func @attention_d128(%q: !d4, %k: !kvd4, %v: !kvd4, %o: !o4, %o_rows: memref<?x?x!eo>,
                             %cu_q: memref<?xi32>, %cu_k: memref<?xi32>, %batch: index,
                             %heads: index, %group: index, %sq: index, %sk: index,
                             %left: index, %right: index, %scale_log2: f32,
                             %cap_in: f32, %cap_out: f32, %softcap: i1, %bottom_right: i1,
                             %paired: i1, %varlen: i1, %kp: !kvpage, %vp: !kvpage,
                             %table: memref<?x?xi32>, %seqlens: memref<?xi32>, %page: index,
                             %block_heads: index, %added: index, %paged: i1,
                             %per_sequence: i1,
                             %lse: memref<?xf32>, %save_lse: i1,
                             %q_descale: !descale, %k_descale: !descale,
                             %v_descale: !descale, %descaled: i1) kernel
        attributes {known_block_size = array<i32: 384, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c16 = arith.constant 16 : index
      %c_halvings = arith.constant #halvings
      %c_stages = arith.constant #kv_stages
      %c_d = arith.constant #head_dim
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %chunks = arith.constant #chunks
      %c2_i32 = arith.constant 2 : i32
      %two_chunks = arith.cmpi eq, %chunks, %c2_i32 : i32
      %consumers = arith.constant 2 : i32
      %false = arith.constant false
      %true = arith.constant true
      %pv_wait = arith.constant #pv_wait
      %c2_groups = arith.constant 2 : i32
      %early_turn = arith.cmpi eq, %pv_wait, %c2_groups : i32
      // A KV cache: K and V through the block table (%paged), and each
      // sequence's keys from seqlens[b] + %added (%per_sequence).
      %use_pages = arith.andi %paged, %true : i1
      %use_lengths = arith.andi %per_sequence, %true : i1
      // Whether the window has a left edge (left below 2^30, the unbounded
      // edge): the variants for calls without one fold it to false, and
      // their masked blocks compare no left edge.
      %c_unbounded = arith.constant #unbounded
      %has_left = arith.cmpi ult, %left, %c_unbounded : index
      // For the backward (tile.ops.attention_backward): each query row's
      // negated log2 sum-exp into %lse[(b H + h) Sq + i] (packed sequences:
      // %lse[h total_q + cu_q[b] + i], flash_attn_varlen_func's layout);
      // tile.attention's own variants fold it away.
      %keep_lse = arith.andi %save_lse, %true : i1
      // The FP8 variant's descale factors (folded away in the others).
      %use_descale = arith.andi %descaled, %true : i1
      // Packed sequences (%varlen): their units, rows, lengths and direct
      // stores. tile.attention_varlen's variants keep them, the others fold
      // them away; the body tests %packed only (with a runtime %varlen left
      // in the dense variants, ptxas gave their consumer loop convergence
      // guards and moved it off the uniform datapath).
      %packed = arith.andi %varlen, %true : i1
      %c_box_rows = arith.constant #box_rows
      %c_boxes = arith.constant #kv_boxes
      // Through the table, a chunk's boxes arrive once, with its 16 KB.
      %chunk_bytes = arith.constant 16384 : i32
      %tid = gpu.thread_id x
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %sq127 = arith.addi %sq, %c127 : index
      %tiles_m = arith.divui %sq127, %c128 : index
      %bh = arith.muli %batch, %heads : index
      // Work units of one (batch, head): paired, query tile T - 1 - i then
      // tile i, so that every pair costs the same under a causal mask
      // (T + 1 key blocks); else one tile each (more units, for calls with
      // few query tiles).
      %tiles_m1 = arith.addi %tiles_m, %c1 : index
      %halves = arith.divui %tiles_m1, %c2 : index
      %pairs_m = arith.select %paired, %halves, %tiles_m : index
      %pairs = arith.muli %bh, %pairs_m : index
      // Packed sequences: a unit is one 128-query tile of a head, over the
      // head's row of tiles of FlashAttention's varlen layout (sequence b's
      // tiles from tile (cu_q[b] + 128 b) / 128: B sequences take at most
      // (total_q + 128 B) / 128 + 1 of them), so a skewed batch has a unit
      // per tile that exists, not B max_seqlen_q / 128 a head: the host
      // passes %batch 1 and %sq the layout's rows (the units' grid: H rows
      // of its tiles), and a unit finds its sequence by a binary search of
      // the tiles' starts (tile.ops.attention.varlen_arguments).
      %packed_rows = memref.dim %o_rows, %c0 : memref<?x?x!eo>
      %mlast = arith.subi %tiles_m, %c1 : index
      %sq_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !qtile
      %sk_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !kvring
      %sv_ = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !kvring
      %staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !ostage
      %q_full = tile.mbarrier_alloc : !bars2
      %q_empty = tile.mbarrier_alloc : !bars2
      %k_full = tile.mbarrier_alloc : !kvbars
      %v_full = tile.mbarrier_alloc : !kvbars
      %k_empty = tile.mbarrier_alloc : !kvbars
      %v_empty = tile.mbarrier_alloc : !kvbars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %q : !d4
        tile.tma_prefetch_descriptor %k : !kvd4
        tile.tma_prefetch_descriptor %v : !kvd4
        scf.for %s = %c0 to %c2 step %c1 {
          tile.mbarrier_init %q_full[%s], %chunks : !bars2
          tile.mbarrier_init %q_empty[%s], %consumers : !bars2
        }
        scf.for %s = %c0 to %c_stages step %c1 {
          tile.mbarrier_init %k_full[%s], %chunks : !kvbars
          tile.mbarrier_init %v_full[%s], %chunks : !kvbars
          tile.mbarrier_init %k_empty[%s], %consumers : !kvbars
          tile.mbarrier_init %v_empty[%s], %consumers : !kvbars
        }
      }
      gpu.barrier
      // Launched as a programmatic dependent: global memory only after the
      // grid before this one (T-PDL-1, T-PDL-2).
      tile.grid_dependency_wait
      tile.warp_specialize producer(registers = 24) {
        // Thread 0 runs the loop and issues the copies; through a table,
        // threads 0 .. #kv_boxes - 1 run it and thread i issues box i (the
        // boxes' table loads in flight together, not one after another;
        // each is held to the ring's pace by the box it delivers).
        %producer_count = arith.select %use_pages, %c_boxes, %c1 : index
        %producer_threads = arith.cmpi ult, %tid, %producer_count : index
        %box_lane = arith.cmpi ult, %tid, %c_boxes : index
        // This thread's box (clamped: the threads without one agree on it).
        %last_box = arith.subi %c_boxes, %c1 : index
        %box_index = arith.minui %tid, %last_box : index
        %lane_rows = arith.muli %box_index, %c_box_rows : index
        %c8 = arith.constant 8 : index
        %lane_groups = arith.divui %lane_rows, %c8 : index
        scf.if %producer_threads {
          %pt:3 = scf.for %pair = %cta to %pairs step %ctas
              iter_args(%ps = %c0, %pph = %true, %pqn = %c0) -> (index, i1, index) {
            %bhi = arith.divui %pair, %pairs_m : index
            %pi_grid = arith.remui %pair, %pairs_m : index
            %b_grid = arith.divui %bhi, %heads : index
            %h_grid = arith.remui %bhi, %heads : index
            %b, %h, %pi = scf.if %packed -> (index, index, index) {
              // Unit pair: row tile u = T - 1 - pair / H of head pair mod H (T
              // tiles: the grid's one batch; the heads of a tile side by side and
              // the tiles from the last, each sequence's heaviest first), in
              // sequence b, the last whose first tile (cu_q[b] + 128 b) / 128 is at
              // or before u (B = the offsets - 1, at most 2^#halvings).
              %h_packed = arith.remui %pair, %heads : index
              %u_back = arith.divui %pair, %heads : index
              %last_tile = arith.subi %pairs_m, %c1 : index
              %u = arith.subi %last_tile, %u_back : index
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
                  %mid_q0 = arith.minsi %mid_pos, %packed_rows : index
                  %mid_rows = arith.muli %mid, %c128 : index
                  %mid_b = arith.addi %mid_q0, %mid_rows : index
                  %mid_tiles = arith.divui %mid_b, %c128 : index
                  %before = arith.cmpi ule, %mid_tiles, %u : index
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
              %seq_q0 = arith.minsi %seq_pos, %packed_rows : index
              %seq_rows = arith.muli %found#0, %c128 : index
              %seq_b = arith.addi %seq_q0, %seq_rows : index
              %seq_tiles = arith.divui %seq_b, %c128 : index
              // The unit's tile of its sequence (a tile before the first one's:
              // bad cu_seqlens, no work).
              %after = arith.cmpi uge, %u, %seq_tiles : index
              %tile_in = arith.subi %u, %seq_tiles : index
              %tile_seq = arith.select %after, %tile_in, %pairs_m : index
              scf.yield %found#0, %h_packed, %tile_seq : index, index, index
            } else {
              scf.yield %b_grid, %h_grid, %pi_grid : index, index, index
            }
            // GQA: query head h reads K and V head h / group.
            %hk = arith.divui %h, %group : index
            %heavy_p = arith.subi %mlast, %pi : index
            %heavy = arith.select %paired, %heavy_p, %pi : index
            %single = arith.cmpi eq, %heavy, %pi : index
            %count = arith.select %single, %c1, %c2 : index
            // The sequence: the whole of Sq and Sk, or packed sequence b, rows
            // cu_q[b] .. cu_q[b + 1] and cu_k[b] .. cu_k[b + 1] of batch 0.
            %b1 = arith.addi %b, %c1 : index
            %qrow0, %len_q, %krow0, %len_k = scf.if %packed -> (index, index, index, index) {
              %q0_i32 = memref.load %cu_q[%b] : memref<?xi32>
              %q1_i32 = memref.load %cu_q[%b1] : memref<?xi32>
              %k0_i32 = memref.load %cu_k[%b] : memref<?xi32>
              %k1_i32 = memref.load %cu_k[%b1] : memref<?xi32>
              %q0_raw = arith.index_cast %q0_i32 : i32 to index
              %q1_raw = arith.index_cast %q1_i32 : i32 to index
              %k0_raw = arith.index_cast %k0_i32 : i32 to index
              %k1_raw = arith.index_cast %k1_i32 : i32 to index
              // Offsets clamped to 0 <= q0 <= q1 <= the packed rows and 0 <= k0 <=
              // k1 <= the packed keys (Sk): bad cu_seqlens write nothing outside
              // out and loop over no more keys than there are.
              %total_q = memref.dim %o_rows, %c0 : memref<?x?x!eo>
              %q0_pos = arith.maxsi %q0_raw, %c0 : index
              %q0 = arith.minsi %q0_pos, %total_q : index
              %q1_lo = arith.maxsi %q1_raw, %q0 : index
              %q1 = arith.minsi %q1_lo, %total_q : index
              %k0_pos = arith.maxsi %k0_raw, %c0 : index
              %k0 = arith.minsi %k0_pos, %sk : index
              %k1_lo = arith.maxsi %k1_raw, %k0 : index
              %k1 = arith.minsi %k1_lo, %sk : index
              %lq = arith.subi %q1, %q0 : index
              %lk = arith.subi %k1, %k0 : index
              scf.yield %q0, %lq, %k0, %lk : index, index, index, index
            } else {
              // A cache's sequence b: seqlens[b] + %added keys, clamped to Sk.
              %len_cache = scf.if %use_lengths -> (index) {
                %seqlen_i32 = memref.load %seqlens[%b] : memref<?xi32>
                %seqlen_raw = arith.index_cast %seqlen_i32 : i32 to index
                %seqlen_all = arith.addi %seqlen_raw, %added : index
                %seqlen_pos = arith.maxsi %seqlen_all, %c0 : index
                %seqlen = arith.minsi %seqlen_pos, %sk : index
                scf.yield %seqlen : index
              } else {
                scf.yield %sk : index
              }
              scf.yield %c0, %sq, %c0, %len_cache : index, index, index, index
            }
            %bt = arith.select %packed, %c0, %b : index
            // Causal diagonals: top left (key j <= query i) or bottom right
            // (j <= i + Sk - Sq, for queries that end a KV cache); key j is seen by
            // query i where i + lo <= j <= i + hi (signed).
            %lk_lq = arith.subi %len_k, %len_q : index
            %diag = arith.select %bottom_right, %lk_lq, %c0 : index
            %lo = arith.subi %diag, %left : index
            %hi = arith.addi %diag, %right : index
            %pu:3 = scf.for %t = %c0 to %count step %c1
                iter_args(%s0 = %ps, %ph0 = %pph, %qn = %pqn) -> (index, i1, index) {
              %first_t = arith.cmpi eq, %t, %c0 : index
              %mb = arith.select %first_t, %heavy, %pi : index
              %m0 = arith.muli %mb, %c128 : index
              %qm0 = arith.addi %qrow0, %m0 : index
              // Tiles past the end of a packed sequence have nothing to do.
              %live = arith.cmpi ult, %m0, %len_q : index
              // Key blocks: those some query of the tile sees.
              %m_end = arith.addi %m0, %c128 : index
              %key_hi = arith.addi %m_end, %hi : index
              %key_end_hi = arith.minsi %key_hi, %len_k : index
              %key_end = arith.maxsi %key_end_hi, %c0 : index
              %key_lo = arith.addi %m0, %lo : index
              %key_start = arith.maxsi %key_lo, %c0 : index
              %key_end127 = arith.addi %key_end, %c127 : index
              %blocks = arith.divui %key_end127, %c128 : index
              %j_first = arith.divui %key_start, %c128 : index
              %j_start = arith.minui %j_first, %blocks : index
              %pl:3 = scf.if %live -> (index, i1, index) {
                // Q, into the buffer the consumers released two units ago.
                %qs = arith.remui %qn, %c2 : index
                %qround = arith.divui %qn, %c2 : index
                %qodd = arith.remui %qround, %c2 : index
                %qph = arith.cmpi eq, %qodd, %c0 : index
                scf.if %first {
                  tile.mbarrier_wait_parity %q_empty[%qs], %qph : !bars2
                  tile.tma_copy %q[%bt, %h, %qm0, %c0] to %sq_[%qs, %c0], %q_full[%qs] : !d4, !qtile, !bars2
                  scf.if %two_chunks {
                    tile.tma_copy %q[%bt, %h, %qm0, %c64] to %sq_[%qs, %c1], %q_full[%qs] : !d4, !qtile, !bars2
                  }
                }
                %p:2 = scf.for %j = %j_start to %blocks step %c1
                    iter_args(%s = %s0, %ph = %ph0) -> (index, i1) {
                  %n0 = arith.muli %j, %c128 : index
                  %kn0 = arith.addi %krow0, %n0 : index
                  // Through the table: the block's first page and row.
                  %table_pages = memref.dim %table, %c1 : memref<?x?xi32>
                  %last_page = arith.subi %table_pages, %c1 : index
                  %page0 = arith.divui %kn0, %page : index
                  %row0 = arith.remui %kn0, %page : index
                  %within = arith.cmpi ugt, %page, %c_box_rows : index
                  // Thread i's page id for box i, loaded before the wait (its
                  // latency under it) and used for K and V.
                  %loads_id = arith.andi %use_pages, %box_lane : i1
                  %pid = scf.if %loads_id -> (index) {
                    %next_page = arith.addi %page0, %box_index : index
                    %box_page = arith.select %within, %page0, %next_page : index
                    %box_page_c = arith.minui %box_page, %last_page : index
                    %pid_i32 = memref.load %table[%b, %box_page_c] : memref<?x?xi32>
                    %pid_raw = arith.index_cast %pid_i32 : i32 to index
                    // The page's rows of KV head hk: entry pid x
                    // %block_heads + hk of the maps' first dimension.
                    %pid_heads = arith.muli %pid_raw, %block_heads : index
                    %slot = arith.addi %pid_heads, %hk : index
                    scf.yield %slot : index
                  } else {
                    scf.yield %c0 : index
                  }
                  tile.mbarrier_wait_parity %k_empty[%s], %ph : !kvbars
                  scf.if %use_pages {
                    scf.if %first {
                      %ktok = tile.mbarrier_arrive_expect_tx %k_full[%s], %chunk_bytes : !kvbars -> !tile.mbarrier_token
                      scf.if %two_chunks {
                        %ktok1 = tile.mbarrier_arrive_expect_tx %k_full[%s], %chunk_bytes : !kvbars -> !tile.mbarrier_token
                      }
                    }
                    scf.if %box_lane {
                      // Box i (this thread's): rows #box_rows i .. of the block's page
                      // (a page of more than #box_rows tokens), or page p0 + i (a page
                      // of #box_rows).
                      %krow_in = arith.addi %row0, %lane_rows : index
                      %krow = arith.select %within, %krow_in, %c0 : index
                      %kgroup = arith.divui %krow, %c8 : index
                      tile.tma_load %kp[%pid, %kgroup, %c0, %c0, %c0] to %sk_[%s, %lane_groups], %k_full[%s] : !kvpage, !kvring, !kvbars
                    }
                  } else {
                    scf.if %first {
                      tile.tma_copy %k[%bt, %hk, %kn0, %c0] to %sk_[%s, %c0, %c0], %k_full[%s] : !kvd4, !kvring, !kvbars
                      scf.if %two_chunks {
                        tile.tma_copy %k[%bt, %hk, %kn0, %c64] to %sk_[%s, %c0, %c1], %k_full[%s] : !kvd4, !kvring, !kvbars
                      }
                    }
                  }
                  tile.mbarrier_wait_parity %v_empty[%s], %ph : !kvbars
                  scf.if %use_pages {
                    scf.if %first {
                      %vtok = tile.mbarrier_arrive_expect_tx %v_full[%s], %chunk_bytes : !kvbars -> !tile.mbarrier_token
                      scf.if %two_chunks {
                        %vtok1 = tile.mbarrier_arrive_expect_tx %v_full[%s], %chunk_bytes : !kvbars -> !tile.mbarrier_token
                      }
                    }
                    scf.if %box_lane {
                      // Box i (this thread's): rows #box_rows i .. of the block's page
                      // (a page of more than #box_rows tokens), or page p0 + i (a page
                      // of #box_rows).
                      %vrow_in = arith.addi %row0, %lane_rows : index
                      %vrow = arith.select %within, %vrow_in, %c0 : index
                      %vgroup = arith.divui %vrow, %c8 : index
                      tile.tma_load %vp[%pid, %vgroup, %c0, %c0, %c0] to %sv_[%s, %lane_groups], %v_full[%s] : !kvpage, !kvring, !kvbars
                    }
                  } else {
                    scf.if %first {
                      tile.tma_copy %v[%bt, %hk, %kn0, %c0] to %sv_[%s, %c0, %c0], %v_full[%s] : !kvd4, !kvring, !kvbars
                      scf.if %two_chunks {
                        tile.tma_copy %v[%bt, %hk, %kn0, %c64] to %sv_[%s, %c0, %c1], %v_full[%s] : !kvd4, !kvring, !kvbars
                      }
                    }
                  }
                  %next = arith.addi %s, %c1 : index
                  %wrap = arith.cmpi eq, %next, %c_stages : index
                  %ns = arith.select %wrap, %c0, %next : index
                  %nph = arith.xori %ph, %wrap : i1
                  scf.yield %ns, %nph : index, i1
                }
                %nqn = arith.addi %qn, %c1 : index
                scf.yield %p#0, %p#1, %nqn : index, i1, index
              } else {
                scf.yield %s0, %ph0, %qn : index, i1, index
              }
              scf.yield %pl#0, %pl#1, %pl#2 : index, i1, index
            }
            scf.yield %pu#0, %pu#1, %pu#2 : index, i1, index
          }
        }
      } consumers(2, registers = 240) {
      ^bb0(%wg: index):
        %row = arith.muli %wg, %c64 : index
        %lane = arith.remui %tid, %c128 : index
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero_s = arith.constant dense<0.0> : vector<64xf32>
        %zero_o = arith.constant dense<0.0> : !acc
        %zero_l = arith.constant dense<0.0> : vector<2xf32>
        %zero_p = arith.constant dense<0.0> : vector<64x!e>
        %ninf_l = arith.constant dense<0xFF800000> : vector<2xf32>
        %ninf_s = arith.constant dense<0xFF800000> : vector<64xf32>
        %one_l = arith.constant dense<1.0> : vector<2xf32>
        %all_lanes = arith.constant -1 : i32
        %one_f = arith.constant 1.0 : f32
        %p_offset = arith.constant #p_offset
        %p_offset_l = vector.broadcast %p_offset : f32 to vector<2xf32>
        // Logit softcap (Gemma 2): scores c tanh(scale s / c) / scale, as
        // cap_out tanh(y) = cap_out - 2 cap_out / (exp2(2 log2(e) y) + 1)
        // with y = cap_in s: a product, exp2, reciprocal and FMA an element
        // (the scalars folded here), with %softcap.
        %use_cap = arith.andi %softcap, %true : i1
        %cap_out_s = vector.broadcast %cap_out : f32 to vector<64xf32>
        %two_log2e = arith.constant 2.88539008 : f32
        %minus_two = arith.constant -2.0 : f32
        %cap_k = arith.mulf %cap_in, %two_log2e : f32
        %cap_m2 = arith.mulf %cap_out, %minus_two : f32
        %cap_m2_s = vector.broadcast %cap_m2 : f32 to vector<64xf32>
        %one_s = arith.constant dense<1.0> : vector<64xf32>
        // Ping-pong: this warpgroup's turn is named barrier 9 + wg, the
        // other's 9 + (1 - wg); warpgroup 0 starts.
        %c9 = arith.constant 9 : index
        %my_turn_i = arith.addi %c9, %wg : index
        %my_turn = arith.index_cast %my_turn_i : index to i32
        %wg_next = arith.addi %wg, %c1 : index
        %c_consumers = arith.constant 2 : index
        %next_wg = arith.remui %wg_next, %c_consumers : index
        %next_turn_i = arith.addi %c9, %next_wg : index
        %next_turn = arith.index_cast %next_turn_i : index to i32
        %last_wg = arith.cmpi eq, %wg_next, %c_consumers : index
        scf.if %last_wg {
          tile.named_barrier_arrive %next_turn, 256
        }
        %ct:3 = scf.for %pair = %cta to %pairs step %ctas
            iter_args(%ps = %c0, %pph = %false, %pqn = %c0) -> (index, i1, index) {
          %bhi = arith.divui %pair, %pairs_m : index
          %pi_grid = arith.remui %pair, %pairs_m : index
          %b_grid = arith.divui %bhi, %heads : index
          %h_grid = arith.remui %bhi, %heads : index
          %b, %h, %pi = scf.if %packed -> (index, index, index) {
            // Unit pair: row tile u = T - 1 - pair / H of head pair mod H (T
            // tiles: the grid's one batch; the heads of a tile side by side and
            // the tiles from the last, each sequence's heaviest first), in
            // sequence b, the last whose first tile (cu_q[b] + 128 b) / 128 is at
            // or before u (B = the offsets - 1, at most 2^#halvings).
            %h_packed = arith.remui %pair, %heads : index
            %u_back = arith.divui %pair, %heads : index
            %last_tile = arith.subi %pairs_m, %c1 : index
            %u = arith.subi %last_tile, %u_back : index
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
                %mid_q0 = arith.minsi %mid_pos, %packed_rows : index
                %mid_rows = arith.muli %mid, %c128 : index
                %mid_b = arith.addi %mid_q0, %mid_rows : index
                %mid_tiles = arith.divui %mid_b, %c128 : index
                %before = arith.cmpi ule, %mid_tiles, %u : index
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
            %seq_q0 = arith.minsi %seq_pos, %packed_rows : index
            %seq_rows = arith.muli %found#0, %c128 : index
            %seq_b = arith.addi %seq_q0, %seq_rows : index
            %seq_tiles = arith.divui %seq_b, %c128 : index
            // The unit's tile of its sequence (a tile before the first one's:
            // bad cu_seqlens, no work).
            %after = arith.cmpi uge, %u, %seq_tiles : index
            %tile_in = arith.subi %u, %seq_tiles : index
            %tile_seq = arith.select %after, %tile_in, %pairs_m : index
            scf.yield %found#0, %h_packed, %tile_seq : index, index, index
          } else {
            scf.yield %b_grid, %h_grid, %pi_grid : index, index, index
          }
          // GQA: query head h reads K and V head h / group.
          %hk = arith.divui %h, %group : index
          // The unit's score scale c (FP8: times its Q and K descale
          // factors, which a softcap takes inside its tanh instead) and
          // its V factor, applied with 1 / l.
          %qk_descale, %v_factor = scf.if %use_descale -> (f32, f32) {
            %qd = memref.load %q_descale[%b, %hk] : !descale
            %kd = memref.load %k_descale[%b, %hk] : !descale
            %vd = memref.load %v_descale[%b, %hk] : !descale
            %qkd = arith.mulf %qd, %kd : f32
            scf.yield %qkd, %vd : f32, f32
          } else {
            scf.yield %one_f, %one_f : f32, f32
          }
          %scale_descaled = arith.mulf %scale_log2, %qk_descale : f32
          %scale_unit = arith.select %use_cap, %scale_log2, %scale_descaled : f32
          %c_l = vector.broadcast %scale_unit : f32 to vector<2xf32>
          %c_s = vector.broadcast %scale_unit : f32 to vector<64xf32>
          %cap_k_unit = arith.mulf %cap_k, %qk_descale : f32
          %cap_k_s = vector.broadcast %cap_k_unit : f32 to vector<64xf32>
          %heavy_p = arith.subi %mlast, %pi : index
          %heavy = arith.select %paired, %heavy_p, %pi : index
          %single = arith.cmpi eq, %heavy, %pi : index
          %count = arith.select %single, %c1, %c2 : index
          // The sequence: the whole of Sq and Sk, or packed sequence b, rows
          // cu_q[b] .. cu_q[b + 1] and cu_k[b] .. cu_k[b + 1] of batch 0.
          %b1 = arith.addi %b, %c1 : index
          %qrow0, %len_q, %krow0, %len_k = scf.if %packed -> (index, index, index, index) {
            %q0_i32 = memref.load %cu_q[%b] : memref<?xi32>
            %q1_i32 = memref.load %cu_q[%b1] : memref<?xi32>
            %k0_i32 = memref.load %cu_k[%b] : memref<?xi32>
            %k1_i32 = memref.load %cu_k[%b1] : memref<?xi32>
            %q0_raw = arith.index_cast %q0_i32 : i32 to index
            %q1_raw = arith.index_cast %q1_i32 : i32 to index
            %k0_raw = arith.index_cast %k0_i32 : i32 to index
            %k1_raw = arith.index_cast %k1_i32 : i32 to index
            // Offsets clamped to 0 <= q0 <= q1 <= the packed rows and 0 <= k0 <=
            // k1 <= the packed keys (Sk): bad cu_seqlens write nothing outside
            // out and loop over no more keys than there are.
            %total_q = memref.dim %o_rows, %c0 : memref<?x?x!eo>
            %q0_pos = arith.maxsi %q0_raw, %c0 : index
            %q0 = arith.minsi %q0_pos, %total_q : index
            %q1_lo = arith.maxsi %q1_raw, %q0 : index
            %q1 = arith.minsi %q1_lo, %total_q : index
            %k0_pos = arith.maxsi %k0_raw, %c0 : index
            %k0 = arith.minsi %k0_pos, %sk : index
            %k1_lo = arith.maxsi %k1_raw, %k0 : index
            %k1 = arith.minsi %k1_lo, %sk : index
            %lq = arith.subi %q1, %q0 : index
            %lk = arith.subi %k1, %k0 : index
            scf.yield %q0, %lq, %k0, %lk : index, index, index, index
          } else {
            // A cache's sequence b: seqlens[b] + %added keys, clamped to Sk.
            %len_cache = scf.if %use_lengths -> (index) {
              %seqlen_i32 = memref.load %seqlens[%b] : memref<?xi32>
              %seqlen_raw = arith.index_cast %seqlen_i32 : i32 to index
              %seqlen_all = arith.addi %seqlen_raw, %added : index
              %seqlen_pos = arith.maxsi %seqlen_all, %c0 : index
              %seqlen = arith.minsi %seqlen_pos, %sk : index
              scf.yield %seqlen : index
            } else {
              scf.yield %sk : index
            }
            scf.yield %c0, %sq, %c0, %len_cache : index, index, index, index
          }
          %bt = arith.select %packed, %c0, %b : index
          // Causal diagonals: top left (key j <= query i) or bottom right
          // (j <= i + Sk - Sq, for queries that end a KV cache); key j is seen by
          // query i where i + lo <= j <= i + hi (signed).
          %lk_lq = arith.subi %len_k, %len_q : index
          %diag = arith.select %bottom_right, %lk_lq, %c0 : index
          %lo = arith.subi %diag, %left : index
          %hi = arith.addi %diag, %right : index
          %len_k_i32 = arith.index_cast %len_k : index to i32
          %len_k_s = vector.broadcast %len_k_i32 : i32 to vector<64xi32>
          %lo_i32 = arith.index_cast %lo : index to i32
          %hi_i32 = arith.index_cast %hi : index to i32
          %cu:3 = scf.for %t = %c0 to %count step %c1
              iter_args(%s0 = %ps, %ph0 = %pph, %qn = %pqn) -> (index, i1, index) {
            %first_t = arith.cmpi eq, %t, %c0 : index
            %mb = arith.select %first_t, %heavy, %pi : index
            %m0 = arith.muli %mb, %c128 : index
            %qm0 = arith.addi %qrow0, %m0 : index
            // Tiles past the end of a packed sequence have nothing to do.
            %live = arith.cmpi ult, %m0, %len_q : index
            // Key blocks: those some query of the tile sees.
            %m_end = arith.addi %m0, %c128 : index
            %key_hi = arith.addi %m_end, %hi : index
            %key_end_hi = arith.minsi %key_hi, %len_k : index
            %key_end = arith.maxsi %key_end_hi, %c0 : index
            %key_lo = arith.addi %m0, %lo : index
            %key_start = arith.maxsi %key_lo, %c0 : index
            %key_end127 = arith.addi %key_end, %c127 : index
            %blocks = arith.divui %key_end127, %c128 : index
            %j_first = arith.divui %key_start, %c128 : index
            %j_start = arith.minui %j_first, %blocks : index
            %cl:3 = scf.if %live -> (index, i1, index) {
            // This warpgroup's first query row, for the masks.
            %r0 = arith.addi %m0, %row : index
            %r0_i32 = arith.index_cast %r0 : index to i32
            %r0_hi = arith.addi %r0, %hi : index
            %r0_hi1 = arith.addi %r0_hi, %c1 : index
            %r63 = arith.addi %r0, %c63 : index
            %r63_lo = arith.addi %r63, %lo : index
            %qs = arith.remui %qn, %c2 : index
            %qround = arith.divui %qn, %c2 : index
            %qodd = arith.remui %qround, %c2 : index
            %qph = arith.cmpi ne, %qodd, %c0 : index
            tile.mbarrier_wait_parity %q_full[%qs], %qph : !bars2
            // Block j: issue S_j = Q K_j^T and, behind it, O = O c_{j-1} +
            // P_{j-1} V_{j-1} (one turn at the tensor cores for both); hand
            // the turn over right after issuing both or once S_j is done
            // (#pv_wait); the softmax of S_j runs under
            // the other warpgroup's products; then P V of the last block.
            // (Not under this warpgroup's own P V: ptxas hoists the wait for
            // it to the top of the softmax's block; kept in place by a block
            // of its own it measured slower.)
            %r:9 = scf.for %j = %j_start to %blocks step %c1
                iter_args(%o_acc = %zero_o, %m_run = %ninf_l, %l_run = %zero_l,
                          %p_prev = %zero_p, %corr_prev = %zero_l, %s_prev = %c0,
                          %ph_prev = %false, %s = %s0, %ph = %ph0)
                -> (!acc, vector<2xf32>, vector<2xf32>, vector<64x!e>, vector<2xf32>,
                    index, i1, index, i1) {
              %n0 = arith.muli %j, %c128 : index
              %n_end = arith.addi %n0, %c128 : index
              tile.mbarrier_wait_parity %k_full[%s], %ph : !kvbars
              tile.named_barrier_sync %my_turn, 256
              %scores = tile.warpgroup_mma %sq_[%qs, %c0, %row, %c0], %sk_[%s, %c0, %c0, %c0, %c0], %zero_s
                  {shape = #qk, wait = 1 : i32, b_row_groups}
                  : !qtile, !kvring, vector<64xf32>
              %later = arith.cmpi ugt, %j, %j_start : index
              // O is rescaled by the previous block's corrections, except in
              // warps where no row's maximum moved (all of them 1; a vote).
              %corr_moved = arith.cmpf une, %corr_prev, %one_l : vector<2xf32>
              %corr_any = vector.reduction <or>, %corr_moved : vector<2xi1> into i1
              %rescale_o = nvvm.vote.sync any %all_lanes, %corr_any -> i1
              %o_cur = scf.if %later -> !acc {
                %o_kept = scf.if %rescale_o -> !acc {
                  %corr_b = tile.warpgroup_broadcast_rows %corr_prev {shape = #orows}
                      : vector<2xf32> -> !acc
                  %o_scaled = arith.mulf %o_acc, %corr_b : !acc
                  scf.yield %o_scaled : !acc
                } else {
                  scf.yield %o_acc : !acc
                }
                tile.mbarrier_wait_parity %v_full[%s_prev], %ph_prev : !kvbars
                // Leaves this block's S_j done, the product pending.
                %o_pv = tile.warpgroup_mma_rs %p_prev, %sv_[%s_prev, %c0, %c0, %c0, %c0], %o_kept
                    {shape = #pv, wait = #pv_wait, transpose_b, b_row_groups}
                    : vector<64x!e>, !kvring, !acc
                scf.if %early_turn {
                  tile.named_barrier_arrive %next_turn, 256
                  tile.wgmma_wait_group 1
                }
                scf.yield %o_pv : !acc
              } else {
                tile.wgmma_wait_group 0
                scf.yield %o_acc : !acc
              }
              // The turn, where not handed on above.
              %handed = arith.andi %early_turn, %later : i1
              %hand_now = arith.xori %handed, %true : i1
              scf.if %hand_now {
                tile.named_barrier_arrive %next_turn, 256
              }
              // S_j is done: the K stage is free.
              scf.if %signals {
                %ktok = tile.mbarrier_arrive %k_empty[%s] : !kvbars -> !tile.mbarrier_token
              }
              %capped = scf.if %use_cap -> vector<64xf32> {
                %cap_y2 = arith.mulf %scores, %cap_k_s : vector<64xf32>
                %cap_e = math.exp2 %cap_y2 fastmath<afn> : vector<64xf32>
                %cap_e1 = arith.addf %cap_e, %one_s : vector<64xf32>
                %cap_r = arith.divf %one_s, %cap_e1 fastmath<afn> : vector<64xf32>
                %cap_z = math.fma %cap_r, %cap_m2_s, %cap_out_s : vector<64xf32>
                scf.yield %cap_z : vector<64xf32>
              } else {
                scf.yield %scores : vector<64xf32>
              }
              // Keys past the sequence, after the diagonal (+ right) or
              // before the window's left edge of some row.
              %past_keys = arith.cmpi ugt, %n_end, %len_k : index
              %over = arith.cmpi sgt, %n_end, %r0_hi1 : index
              %under_edge = arith.cmpi slt, %n0, %r63_lo : index
              %under = arith.andi %under_edge, %has_left : i1
              %cut = arith.ori %over, %under : i1
              %needs_mask = arith.ori %past_keys, %cut : i1
              %masked = scf.if %needs_mask -> vector<64xf32> {
                // Each score's key and query (computed here: kept across
                // the loop, they would hold 128 registers).
                %cols = tile.warpgroup_iota {dim = 1 : i64, shape = array<i64: 64, 128>} : vector<64xi32>
                %rows = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 64, 128>} : vector<64xi32>
                %r0_s = vector.broadcast %r0_i32 : i32 to vector<64xi32>
                %qrows = arith.addi %rows, %r0_s : vector<64xi32>
                %n0_i32 = arith.index_cast %n0 : index to i32
                %n0_s = vector.broadcast %n0_i32 : i32 to vector<64xi32>
                %keys = arith.addi %cols, %n0_s : vector<64xi32>
                %in_keys = arith.cmpi slt, %keys, %len_k_s : vector<64xi32>
                %hi_s = vector.broadcast %hi_i32 : i32 to vector<64xi32>
                %last_key = arith.addi %qrows, %hi_s : vector<64xi32>
                %below = arith.cmpi sle, %keys, %last_key : vector<64xi32>
                %seen = scf.if %has_left -> vector<64xi1> {
                  %lo_s = vector.broadcast %lo_i32 : i32 to vector<64xi32>
                  %first_key = arith.addi %qrows, %lo_s : vector<64xi32>
                  %above = arith.cmpi sge, %keys, %first_key : vector<64xi32>
                  %between = arith.andi %above, %below : vector<64xi1>
                  scf.yield %between : vector<64xi1>
                } else {
                  scf.yield %below : vector<64xi1>
                }
                %valid = arith.andi %in_keys, %seen : vector<64xi1>
                %sel = arith.select %valid, %capped, %ninf_s : vector<64xi1>, vector<64xf32>
                scf.yield %sel : vector<64xf32>
              } else {
                scf.yield %capped : vector<64xf32>
              }
              // Online softmax: the running maximum m of each row and the
              // thread's part of its sum l (combined once, at the end). A
              // row that has seen no key yet keeps m = -inf and subtracts 0
              // (not -inf - -inf), so its probabilities and l stay 0.
              %block_max = tile.warpgroup_row_reduce <maxnumf> %masked {shape = array<i64: 64, 128>}
                  : vector<64xf32> -> vector<2xf32>
              %m_new = arith.maxnumf %m_run, %block_max : vector<2xf32>
              %m_scaled_raw = arith.mulf %m_new, %c_l : vector<2xf32>
              %no_key = arith.cmpf oeq, %m_new, %ninf_l : vector<2xf32>
              %m_scaled = arith.select %no_key, %zero_l, %m_scaled_raw : vector<2xi1>, vector<2xf32>
              %m_old_scaled = arith.mulf %m_run, %c_l : vector<2xf32>
              %m_diff = arith.subf %m_old_scaled, %m_scaled : vector<2xf32>
              %correction = math.exp2 %m_diff fastmath<afn> : vector<2xf32>
              %m_offset = arith.subf %m_scaled, %p_offset_l : vector<2xf32>
              %m_b = tile.warpgroup_broadcast_rows %m_offset {shape = array<i64: 64, 128>}
                  : vector<2xf32> -> vector<64xf32>
              %s_scaled = arith.mulf %masked, %c_s fastmath<contract> : vector<64xf32>
              %exponent = arith.subf %s_scaled, %m_b fastmath<contract> : vector<64xf32>
              %probs = math.exp2 %exponent fastmath<afn> : vector<64xf32>
              %block_sum = tile.warpgroup_row_reduce <add> %probs {partial, shape = array<i64: 64, 128>}
                  : vector<64xf32> -> vector<2xf32>
              %l_kept = arith.mulf %l_run, %correction : vector<2xf32>
              %l_new = arith.addf %l_kept, %block_sum : vector<2xf32>
              // The previous block's P V is done: its V stage is free.
              tile.wgmma_wait_group 0
              // P_{j-1} is dead now: P_j takes its registers.
              %p16 = arith.truncf %probs : vector<64xf32> to vector<64x!e>
              %release = arith.andi %later, %signals : i1
              scf.if %release {
                %tok = tile.mbarrier_arrive %v_empty[%s_prev] : !kvbars -> !tile.mbarrier_token
              }
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c_stages : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %o_cur, %m_new, %l_new, %p16, %correction, %s, %ph, %ns, %nph
                  : !acc, vector<2xf32>, vector<2xf32>, vector<64x!e>, vector<2xf32>,
                    index, i1, index, i1
            }
            // P V of the last block, and its stage released (none when the
            // tile sees no key: its rows come out 0).
            %any_block = arith.cmpi ugt, %blocks, %j_start : index
            %o_final = scf.if %any_block -> !acc {
              // A cache's V rows past the sequence (in the last block only)
              // zeroed before P V, half by each warpgroup: P is 0 there, but
              // a cache's slots past its length may hold anything (0 NaN is
              // NaN). tile.attention's maps end at Sk: TMA fills zeros.
              %cache = arith.ori %use_pages, %use_lengths : i1
              scf.if %cache {
                tile.mbarrier_wait_parity %v_full[%r#5], %r#6 : !kvbars
                %last_end = arith.muli %blocks, %c128 : index
                %v_past = arith.cmpi ugt, %last_end, %len_k : index
                scf.if %v_past {
                  // Row first_past + (%lane + stage) mod 128: the lanes
                  // turned by the loop's last stage, so that no part of the
                  // address is hoisted into registers held through the
                  // loop; warpgroup wg's half of its vectors.
                  %last_n0 = arith.subi %last_end, %c128 : index
                  %first_past = arith.subi %len_k, %last_n0 : index
                  %turned = arith.addi %lane, %r#5 : index
                  %zero_lane = arith.remui %turned, %c128 : index
                  %zero_row = arith.addi %first_past, %zero_lane : index
                  %row_past = arith.cmpi ult, %zero_row, %c128 : index
                  scf.if %row_past {
                    %zero_v = arith.constant dense<0.0> : vector<8x!e>
                    %c8 = arith.constant 8 : index
                    %c_ring_rows = arith.constant #ring_rows
                    %zgroup = arith.divui %zero_row, %c_ring_rows : index
                    %zgroup_row = arith.remui %zero_row, %c_ring_rows : index
                    %half_vectors = arith.divui %c_d, %c16 : index
                    %v0 = arith.muli %wg, %half_vectors : index
                    scf.for %i = %c0 to %half_vectors step %c1 {
                      // Vector zv's 16 bytes, at the column that the 128-byte
                      // swizzle puts there (the row's vectors permuted: one
                      // address and constant offsets).
                      %zv = arith.addi %v0, %i : index
                      %zchunk = arith.divui %zv, %c8 : index
                      %zslot = arith.remui %zv, %c8 : index
                      %zphase = arith.remui %zero_row, %c8 : index
                      %zcol8 = arith.xori %zslot, %zphase : index
                      %zcol = arith.muli %zcol8, %c8 : index
                      vector.store %zero_v, %sv_[%r#5, %zgroup, %zchunk, %zgroup_row, %zcol] : !kvring, vector<8x!e>
                    }
                  }
                  tile.fence_proxy_async shared_cta
                  %zeroed = arith.constant 11 : i32
                  tile.named_barrier_sync %zeroed, 256
                }
              }
              %last_moved = arith.cmpf une, %r#4, %one_l : vector<2xf32>
              %last_any = vector.reduction <or>, %last_moved : vector<2xi1> into i1
              %rescale_last = nvvm.vote.sync any %all_lanes, %last_any -> i1
              %o_last_kept = scf.if %rescale_last -> !acc {
                %corr_last = tile.warpgroup_broadcast_rows %r#4 {shape = #orows}
                    : vector<2xf32> -> !acc
                %o_ls = arith.mulf %r#0, %corr_last : !acc
                scf.yield %o_ls : !acc
              } else {
                scf.yield %r#0 : !acc
              }
              // tile.attention's variants wait for V here; the KV-cache
              // variants above, where ptxas fits them without spills.
              %dense = arith.xori %cache, %true : i1
              scf.if %dense {
                tile.mbarrier_wait_parity %v_full[%r#5], %r#6 : !kvbars
              }
              %o_pv_last = tile.warpgroup_mma_rs %r#3, %sv_[%r#5, %c0, %c0, %c0, %c0], %o_last_kept
                  {shape = #pv, wait = 0 : i32, transpose_b, b_row_groups}
                  : vector<64x!e>, !kvring, !acc
              scf.if %signals {
                %tok = tile.mbarrier_arrive %v_empty[%r#5] : !kvbars -> !tile.mbarrier_token
              }
              scf.yield %o_pv_last : !acc
            } else {
              scf.yield %zero_o : !acc
            }
            // The unit's Q is no longer read.
            scf.if %signals {
              %tok = tile.mbarrier_arrive %q_empty[%qs] : !bars2 -> !tile.mbarrier_token
            }
            %l_final = tile.warpgroup_row_reduce <add> %r#2 {shape = array<i64: 64, 128>}
                : vector<2xf32> -> vector<2xf32>
            %l_pos = arith.cmpf ogt, %l_final, %zero_l : vector<2xf32>
            %l_inv = arith.divf %one_l, %l_final : vector<2xf32>
            %inv_l = arith.select %l_pos, %l_inv, %zero_l : vector<2xi1>, vector<2xf32>
            %v_factor_l = vector.broadcast %v_factor : f32 to vector<2xf32>
            %o_factors = arith.mulf %inv_l, %v_factor_l : vector<2xf32>
            %out = tile.warpgroup_scale %o_final row_factors %o_factors : vector<2xf32>
                {shape = #orows} : !acc
            // -(c m + log2 l) of the warpgroup's rows (-inf for a row that saw
            // no key), stored by each quad's first lane: rows 16 warp + lane
            // / 4 and 8 more.
            scf.if %keep_lse {
              %lse_m = arith.mulf %r#1, %c_l : vector<2xf32>
              %lse_l = math.log2 %l_final : vector<2xf32>
              %lse_raw = arith.addf %lse_m, %lse_l : vector<2xf32>
              %nlse_raw = arith.negf %lse_raw : vector<2xf32>
              %nlse = arith.select %l_pos, %nlse_raw, %ninf_l : vector<2xi1>, vector<2xf32>
              %c4 = arith.constant 4 : index
              %c8 = arith.constant 8 : index
              %c32 = arith.constant 32 : index
              %warp_lane = arith.remui %lane, %c32 : index
              %warp = arith.divui %lane, %c32 : index
              %quad_lane = arith.remui %warp_lane, %c4 : index
              %quad_first = arith.cmpi eq, %quad_lane, %c0 : index
              scf.if %quad_first {
                %w16 = arith.muli %warp, %c16 : index
                %l4 = arith.divui %warp_lane, %c4 : index
                %in_tile = arith.addi %w16, %l4 : index
                // Head h's rows: (b H + h) Sq + i, or packed, h total_q +
                // cu_q[b] + i (flash_attn_varlen_func's (H, total_q) lse).
                %bh_row = arith.muli %b, %heads : index
                %bhh = arith.addi %bh_row, %h : index
                %dense_row0 = arith.muli %bhh, %sq : index
                %h_rows = arith.muli %h, %packed_rows : index
                %packed_row0 = arith.addi %h_rows, %qrow0 : index
                %head_row0 = arith.select %packed, %packed_row0, %dense_row0 : index
                %lse_a = vector.extract %nlse[0] : f32 from vector<2xf32>
                %lse_b = vector.extract %nlse[1] : f32 from vector<2xf32>
                %row_a = arith.addi %r0, %in_tile : index
                %row_b = arith.addi %row_a, %c8 : index
                %in_a = arith.cmpi ult, %row_a, %len_q : index
                scf.if %in_a {
                  %at_a = arith.addi %head_row0, %row_a : index
                  memref.store %lse_a, %lse[%at_a] : memref<?xf32>
                }
                %in_b = arith.cmpi ult, %row_b, %len_q : index
                scf.if %in_b {
                  %at_b = arith.addi %head_row0, %row_b : index
                  memref.store %lse_b, %lse[%at_b] : memref<?xf32>
                }
              }
            }
            // Packed sequences: stores bounded by the sequence's last row
            // (a TMA box would write into the next sequence).
            scf.if %packed {
              %orow = arith.addi %qrow0, %r0 : index
              %orow_end = arith.addi %qrow0, %len_q : index
              %ocol = arith.muli %h, %c_d : index
              %ocol_end = arith.addi %ocol, %c_d : index
              tile.warpgroup_mma_store %out, %o_rows[%orow, %ocol] bounds [%orow_end, %ocol_end]
                  {shape = #orows} : !acc, memref<?x?x!eo>
            } else {
              tile.warpgroup_tma_store %out, %staging[%wg] to %o[%b, %h, %r0, %c0] {shape = #orows}
                  : !acc, !ostage, !o4
            }
            %nqn = arith.addi %qn, %c1 : index
            scf.yield %r#7, %r#8, %nqn : index, i1, index
            } else {
              scf.yield %s0, %ph0, %qn : index, i1, index
            }
            scf.yield %cl#0, %cl#1, %cl#2 : index, i1, index
          }
          scf.yield %cu#0, %cu#1, %cu#2 : index, i1, index
        }
        // The last turn handed to warpgroup 0 by warpgroup 1 is not taken.
        // The last TMA stores have written O.
        scf.if %signals {
          tile.bulk_wait_group 0
        }
      }
      gpu.return
    }
  }
}
