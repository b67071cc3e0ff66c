// The grouped Hopper GEMM of mixture-of-experts layers in tile IR (sm_90a):
// for each group g, C[rows of g] = A[rows of g] * B_g^T, in one persistent
// launch. A (M x K) and C (M x N) hold the groups' rows stacked, group g's
// `count[g]` rows from row `start[g]`: the contiguous layout (starts are the
// running sums of the counts) and the masked one (start[g] = g * capacity,
// count[g] the valid rows) alike. B is G expert matrices of N x K (K-major),
// addressed as one (G N) x K matrix: group g's tile rows start at g N. So
// one tensor map serves each operand; no per-group descriptor is built.
// f16 in (bf16 by redefining !e), f32 accumulation, C in the same type.
//
// The kernel is python/tile/kernels/gemm_sm90.mlir's @gemm_nt (one TMA producer
// thread, two wgmma consumer warpgroups, a 4-stage ring of 128x256x64
// stages, persistent, split-K tail) over a grouped work list: the 128x256
// tiles of all groups, group by group (each group's in the grouped tile
// order), assigned by tile.work_unit split_k as the dense kernel's tiles
// are — whole tiles round-robin, a mostly idle last wave split along K and
// summed by tile.split_k_reduce; each role finds a tile's group by walking
// the groups on from its previous tile's. A tile whose rows
// end inside its group is stored through the TMA-store epilogue; the last
// row tile of a group (when the group's rows are not a multiple of 128) is
// stored with bounds, so that it never writes the next group's rows. A and
// B rows past a group (another group's, or TMA's zero fill) only feed C rows
// and columns that are not stored. Empty groups take no tiles.
//
//   tile-opt python/tile/kernels/gemm_sm90_grouped.mlir --tile-to-ptx-pipeline="chip=sm_90a"
//   tile-run python/tile/kernels/gemm_sm90_grouped.mlir --chip=sm_90a
// prints the mismatches against the host (all 0) for nine groups of 0 to
// 286 rows, contiguous and masked.

!e = f16
!da = !tile.tma_desc<memref<?x?x!e>, box = [128, 64], swizzle = b128>
!db = !tile.tma_desc<memref<?x?x!e>, box = [256, 64], swizzle = b128>
!dc = !tile.tma_desc<memref<?x?x!e>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 4>
// The FP8 kernel's element types: A, B (e4m3 or e5m2, any pair) and C
// (bf16 or f16); tile.grouped_matmul compiles its variants by redefining
// these aliases.
!ea = f8E4M3FN
!eb = f8E4M3FN
!ec = bf16
!da8 = !tile.tma_desc<memref<?x?x!ea>, box = [128, 128], swizzle = b128>
!db8 = !tile.tma_desc<memref<?x?x!eb>, box = [256, 128], swizzle = b128>
!dc8 = !tile.tma_desc<memref<?x?x!ec>, box = [64, 64], swizzle = b128>
// The block-scaled kernel's B tiles (128 rows) and its scales: A's per
// (row, 128-wide K block), B's per (128-row block of the (G N) x K matrix
// by groups, K block), any strides; its 6-stage ring's barriers.
!db8h = !tile.tma_desc<memref<?x?x!eb>, box = [128, 128], swizzle = b128>
!block_scales = memref<?x?xf32, strided<[?, ?], offset: ?>>
!bars6 = !tile.mbarrier<count = 6>
// FP8 scale factors: one per row of A (of B), or one for the operand.
!scales = memref<?xf32>
// Per group: its rows' running end (contiguous) or count (masked).
!rows = memref<?xi32>
// Split tiles' partial sums and arrival counters, as python/tile/kernels/gemm_sm90.mlir.
!workspace = memref<?x128xf32>
!counters = memref<?xi32>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // C[start g + i, j] = sum over l of A[start g + i, l] * B[g N + j, l]
    // for i < count g, j < N, for each of the `groups` groups; the rows of
    // group g from @group_rows.
    // The first row and the rows of group g. Contiguous (`capacity` 0):
    // `bounds` are the running ends of the groups (PyTorch's `offs`), group
    // g the rows [bounds[g - 1], bounds[g]) (from 0 for g = 0). Masked:
    // group g starts at g * capacity with min(bounds[g], capacity) valid
    // rows. Negative bounds count as 0, a decreasing offset as an empty
    // group.
    func.func @group_rows(%bounds: !rows, %capacity: index, %g: index) -> (index, index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      // Bounds are int32; a negative one counts as 0 rows (signed clamps
      // before the index arithmetic, so bad bounds never wrap to a huge
      // count).
      %zero32 = arith.constant 0 : i32
      %raw32 = memref.load %bounds[%g] : !rows
      %bound32 = arith.maxsi %raw32, %zero32 : i32
      %bound = arith.index_cast %bound32 : i32 to index
      %masked = arith.cmpi ne, %capacity, %c0 : index
      %g1 = arith.maxui %g, %c1 : index
      %before = arith.subi %g1, %c1 : index
      %end_raw32 = memref.load %bounds[%before] : !rows
      %end32 = arith.maxsi %end_raw32, %zero32 : i32
      %end = arith.index_cast %end32 : i32 to index
      %first = arith.cmpi eq, %g, %c0 : index
      %stacked = arith.select %first, %c0, %end : index
      %slot = arith.muli %g, %capacity : index
      %start = arith.select %masked, %slot, %stacked : index
      // A decreasing offset is an empty group, not a wrapped count.
      %ordered = arith.maxui %bound, %stacked : index
      %stacked_count = arith.subi %ordered, %stacked : index
      // A valid count past the capacity stays inside the group's slot.
      %valid = arith.minui %bound, %capacity : index
      %count = arith.select %masked, %valid, %stacked_count : index
      return %start, %count : index, index
    }

    // The 128x256 tiles of all groups, group by group: their number.
    func.func @count_tiles(%bounds: !rows, %capacity: index, %groups: index,
                           %tiles_n: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %total = scf.for %g = %c0 to %groups step %c1 iter_args(%sum = %c0) -> (index) {
        %start, %count = func.call @group_rows(%bounds, %capacity, %g)
            : (!rows, index, index) -> (index, index)
        %count127 = arith.addi %count, %c127 : index
        %tiles_m = arith.divui %count127, %c128 : index
        %tiles = arith.muli %tiles_m, %tiles_n : index
        %next = arith.addi %sum, %tiles : index
        scf.yield %next : index
      }
      return %total : index
    }

    // Tile `tile` of the list of all groups' tiles: its group, the group's
    // first row, its rows and row tiles, the tile's index in the group,
    // and (as the next search's start) the group and its first tile. The
    // search starts at group `g0`, whose first tile is `base0`: a CTA's
    // tiles never decrease (T-TILE-7), so it resumes where its previous tile
    // was found and walks each group once (a search from group 0 for each
    // tile made 64 groups of 512 rows 1.4x slower on an H200). 32-bit, as
    // the bounds.
    func.func @locate(%bounds: !rows, %capacity: index, %groups: index, %tiles_n: index,
                      %tile: index, %g0: i32, %base0: i32)
        -> (index, index, index, index, index, i32, i32) {
      %c1 = arith.constant 1 : i32
      %c127 = arith.constant 127 : i32
      %c128 = arith.constant 128 : i32
      %tile32 = arith.index_cast %tile : index to i32
      %groups32 = arith.index_cast %groups : index to i32
      %tiles_n32 = arith.index_cast %tiles_n : index to i32
      // A tile before the resume point (which T-TILE-7's order never
      // gives) restarts the walk at group 0.
      %zero = arith.constant 0 : i32
      %back = arith.cmpi ult, %tile32, %base0 : i32
      %g_first = arith.select %back, %zero, %g0 : i32
      %base_first = arith.select %back, %zero, %base0 : i32
      // The group's rows come out with it (the condition's values when the
      // walk stops).
      %found:5 = scf.while (%g = %g_first, %base = %base_first)
          : (i32, i32) -> (i32, i32, index, index, i32) {
        %gi = arith.index_cast %g : i32 to index
        %start, %count = func.call @group_rows(%bounds, %capacity, %gi)
            : (!rows, index, index) -> (index, index)
        %count32 = arith.index_cast %count : index to i32
        %count127 = arith.addi %count32, %c127 : i32
        %tiles_m = arith.divui %count127, %c128 : i32
        %tiles = arith.muli %tiles_m, %tiles_n32 : i32
        %end = arith.addi %base, %tiles : i32
        %g1 = arith.addi %g, %c1 : i32
        %more_groups = arith.cmpi ult, %g1, %groups32 : i32
        %past = arith.cmpi uge, %tile32, %end : i32
        %next = arith.andi %more_groups, %past : i1
        %ng = arith.select %next, %g1, %g : i32
        %nbase = arith.select %next, %end, %base : i32
        scf.condition(%next) %ng, %nbase, %start, %count, %tiles_m
            : i32, i32, index, index, i32
      } do {
      ^bb0(%g: i32, %base: i32, %start: index, %count: index, %tiles_m: i32):
        scf.yield %g, %base : i32, i32
      }
      %g = arith.index_cast %found#0 : i32 to index
      %tiles_m = arith.index_cast %found#4 : i32 to index
      %local32 = arith.subi %tile32, %found#1 : i32
      %local = arith.index_cast %local32 : i32 to index
      return %g, %found#2, %found#3, %tiles_m, %local, %found#0, %found#1
          : index, index, index, index, index, i32, i32
    }

    // @locate's first five answers from group 0 on, by one branch-free pass
    // over all groups: fewer registers than @locate's walk (the FP8
    // consumers' epilogue, which holds 128 accumulators and their column
    // scales, spilled with it), one pass per tile.
    func.func @locate_by_scan(%bounds: !rows, %capacity: index, %groups: index, %tiles_n: index,
                      %tile: index) -> (index, index, index, index, index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %found:6 = scf.for %g = %c0 to %groups step %c1
          iter_args(%base = %c0, %fg = %c0, %fstart = %c0, %fcount = %c0, %ftm = %c0, %flocal = %c0)
          -> (index, index, index, index, index, index) {
        %start, %count = func.call @group_rows(%bounds, %capacity, %g)
            : (!rows, index, index) -> (index, index)
        %count127 = arith.addi %count, %c127 : index
        %tiles_m = arith.divui %count127, %c128 : index
        %tiles = arith.muli %tiles_m, %tiles_n : index
        %end = arith.addi %base, %tiles : index
        %after = arith.cmpi uge, %tile, %base : index
        %before = arith.cmpi ult, %tile, %end : index
        %here = arith.andi %after, %before : i1
        %local = arith.subi %tile, %base : index
        %g2 = arith.select %here, %g, %fg : index
        %start2 = arith.select %here, %start, %fstart : index
        %count2 = arith.select %here, %count, %fcount : index
        %tm2 = arith.select %here, %tiles_m, %ftm : index
        %local2 = arith.select %here, %local, %flocal : index
        scf.yield %end, %g2, %start2, %count2, %tm2, %local2 : index, index, index, index, index, index
      }
      return %found#1, %found#2, %found#3, %found#4, %found#5 : index, index, index, index, index
    }

    gpu.func @grouped_gemm_nt(%a: !da, %b: !db, %c: !dc, %cm: memref<?x?x!e>,
                              %bounds: !rows, %capacity: index, %groups: index,
                              %n: index, %k: index, %ws: !workspace,
                              %counters: !counters) kernel
        attributes {known_block_size = array<i32: 384, 1, 1>} {
      // Launched as a programmatic dependent: every access of global memory
      // after the grid before this one (T-PDL-1, T-PDL-2; it reads its offsets first).
      tile.grid_dependency_wait
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %c255 = arith.constant 255 : index
      %c256 = arith.constant 256 : index
      %copies = arith.constant 2 : i32
      %consumers = arith.constant 2 : i32
      %zero32 = arith.constant 0 : i32
      %false = arith.constant false
      %true = arith.constant true
      %tid = gpu.thread_id x
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %n255 = arith.addi %n, %c255 : index
      %tiles_n = arith.divui %n255, %c256 : index
      %k63 = arith.addi %k, %c63 : index
      %slices = arith.divui %k63, %c64 : index
      // The work list: every group's tiles in group order, as tile.work_unit
      // split_k assigns them (T-TILE-7): whole tiles round-robin, and where
      // the last wave would leave half the CTAs idle, its tiles split along K.
      %total = func.call @count_tiles(%bounds, %capacity, %groups, %tiles_n)
          : (!rows, index, index, index) -> index
      %ra = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64x!e, 3>
      %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x256x64x!e, 3>
      %staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64x!e, 3>
      %full = tile.mbarrier_alloc : !bars
      %empty = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %a : !da
        tile.tma_prefetch_descriptor %b : !db
        scf.for %s = %c0 to %c4 step %c1 {
          tile.mbarrier_init %full[%s], %copies : !bars
          tile.mbarrier_init %empty[%s], %consumers : !bars
        }
      }
      gpu.barrier
      // The producer at 56 registers (its search of the groups spilled at
      // the dense kernel's 40 and 48), the consumers at 224: 56 + 2 x 224 =
      // 504, the 3 x 168 the CTA is launched with (T-WS-3).
      tile.warp_specialize producer(registers = 56) {
        // One thread issues the copies, starting at phase 1 of the empty
        // barriers (which fresh barriers report as complete).
        scf.if %first {
          // Each role counts its units (a 64-bit division: counted before
          // the roles split, a value live across ptxas's division routine
          // was spilled).
          %units = tile.work_count split_k tiles %total iters %slices worker %cta of %ctas
          %pt:4 = scf.for %i = %c0 to %units step %c1
              iter_args(%s0 = %c0, %ph0 = %true, %g0 = %zero32, %base0 = %zero32)
              -> (index, i1, i32, i32) {
            %tile, %kfirst, %kcount, %fixup, %split, %splits = tile.work_unit %i of split_k
                tiles %total iters %slices worker %cta of %ctas
            %g, %start, %count, %tiles_m, %t, %g32, %base = func.call @locate(%bounds, %capacity, %groups,
                %tiles_n, %tile, %g0, %base0)
                : (!rows, index, index, index, index, i32, i32)
                -> (index, index, index, index, index, i32, i32)
            %pid_m, %pid_n = tile.tile_coord %t in [%tiles_m, %tiles_n] group 4
            %mrow = arith.muli %pid_m, %c128 : index
            %m0 = arith.addi %start, %mrow : index
            %b0 = arith.muli %g, %n : index
            %ncol = arith.muli %pid_n, %c256 : index
            %n0 = arith.addi %b0, %ncol : index
            %kend = arith.addi %kfirst, %kcount : index
            %p:2 = scf.for %l = %kfirst to %kend step %c1 iter_args(%s = %s0, %ph = %ph0) -> (index, i1) {
              tile.mbarrier_wait_parity %empty[%s], %ph : !bars
              %k0 = arith.muli %l, %c64 : index
              tile.tma_copy %a[%m0, %k0] to %ra[%s], %full[%s] : !da, memref<4x128x64x!e, 3>, !bars
              tile.tma_copy %b[%n0, %k0] to %rb[%s], %full[%s] : !db, memref<4x256x64x!e, 3>, !bars
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c4 : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %ns, %nph : index, i1
            }
            scf.yield %p#0, %p#1, %g32, %base : index, i1, i32, i32
          }
        }
      } consumers(2, registers = 224) {
      ^bb0(%wg: index):
        %row = arith.muli %wg, %c64 : index
        %lane = arith.remui %tid, %c128 : index
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero = arith.constant dense<0.0> : vector<128xf32>
        %units = tile.work_count split_k tiles %total iters %slices worker %cta of %ctas
        %ct:4 = scf.for %i = %c0 to %units step %c1
            iter_args(%s0 = %c0, %ph0 = %false, %g0 = %zero32, %base0 = %zero32)
            -> (index, i1, i32, i32) {
          %tile, %kfirst, %kcount, %fixup, %split, %splits = tile.work_unit %i of split_k
              tiles %total iters %slices worker %cta of %ctas
          %kend = arith.addi %kfirst, %kcount : index
          %r:4 = scf.for %l = %kfirst to %kend step %c1
              iter_args(%acc = %zero, %s = %s0, %ph = %ph0, %prev = %c0)
              -> (vector<128xf32>, index, i1, index) {
            tile.mbarrier_wait_parity %full[%s], %ph : !bars
            %next_acc = tile.warpgroup_mma %ra[%s, %row, %c0], %rb[%s, %c0, %c0], %acc
                {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
                : memref<4x128x64x!e, 3>, memref<4x256x64x!e, 3>, vector<128xf32>
            // The previous stage's wgmmas are done (wait depth 1): one
            // thread of the warpgroup releases it.
            %later = arith.cmpi ugt, %l, %kfirst : index
            %release = arith.andi %later, %signals : i1
            scf.if %release {
              %tok = tile.mbarrier_arrive %empty[%prev] : !bars -> !tile.mbarrier_token
            }
            %next = arith.addi %s, %c1 : index
            %wrap = arith.cmpi eq, %next, %c4 : index
            %ns = arith.select %wrap, %c0, %next : index
            %nph = arith.xori %ph, %wrap : i1
            scf.yield %next_acc, %ns, %nph, %s : vector<128xf32>, index, i1, index
          }
          tile.wgmma_wait_group 0
          // The tile's last stage.
          scf.if %signals {
            %tok = tile.mbarrier_arrive %empty[%r#3] : !bars -> !tile.mbarrier_token
          }
          // A tile of the last wave split with other CTAs along K: the last
          // of its units to finish sums the partials (T-TILE-6).
          %wg_fixup = arith.muli %fixup, %c2 : index
          %slot = arith.addi %wg_fixup, %wg : index
          %slots = arith.maxui %splits, %c2 : index
          %last, %sum = tile.split_k_reduce %r#0, %ws, %counters, tile %slot,
              split %split of %splits slots %slots : vector<128xf32>, !workspace, !counters
          // Where the tile is (found only now: of the search, only its
          // resume point stays live across the MMAs).
          %g, %start, %count, %tiles_m, %t, %g32, %base = func.call @locate(%bounds, %capacity, %groups,
              %tiles_n, %tile, %g0, %base0)
              : (!rows, index, index, index, index, i32, i32)
              -> (index, index, index, index, index, i32, i32)
          // Rows inside the group: the TMA-store epilogue (its stores run
          // while the next tile's MMAs do); the group's last, partial row
          // tile: bounded stores that stop at the group's end.
          scf.if %last {
            // Rows past C (offsets beyond M) are not stored: TMA clips
            // them, and the bounded stores stop at C's last row too.
            %c_rows = memref.dim %cm, %c0 : memref<?x?x!e>
            %group_end = arith.addi %start, %count : index
            %end = arith.minui %group_end, %c_rows : index
            %pid_m, %pid_n = tile.tile_coord %t in [%tiles_m, %tiles_n] group 4
            %mrow = arith.muli %pid_m, %c128 : index
            %m0 = arith.addi %start, %mrow : index
            %n0 = arith.muli %pid_n, %c256 : index
            %m1 = arith.addi %m0, %row : index
            %m_end = arith.addi %m0, %c128 : index
            %inside = arith.cmpi ule, %m_end, %end : index
            scf.if %inside {
              tile.warpgroup_tma_store %sum, %staging[%wg] to %c[%m1, %n0] {shape = array<i64: 64, 256>}
                  : vector<128xf32>, memref<2x2x64x64x!e, 3>, !dc
            } else {
              tile.warpgroup_mma_store %sum, %cm[%m1, %n0] bounds [%end, %n] {shape = array<i64: 64, 256>}
                  : vector<128xf32>, memref<?x?x!e>
            }
          }
          scf.yield %r#1, %r#2, %g32, %base : index, i1, i32, i32
        }
        // The last TMA stores have written C.
        scf.if %signals {
          tile.bulk_wait_group 0
        }
      }
      gpu.return
    }

    // The grouped product of 8-bit floats: C[rows of g] = diag(sa) A[rows
    // of g] B_g^T diag(sb), as @grouped_gemm_nt with the stages of
    // python/tile/kernels/gemm_sm90_fp8.mlir (128-element K slices, four m64n256k32
    // wgmmas a stage and consumer warpgroup) and its dequantizing
    // epilogue: sa one f32 factor per row of A or one for all, sb one per
    // row of the (G N) x K B (per output column of each group:
    // torch._scaled_grouped_mm's row-wise scales) or one for all. C in !ec.
    gpu.func @grouped_gemm_fp8_nt(%a: !da8, %b: !db8, %c: !dc8, %cm: memref<?x?x!ec>,
                                  %bounds: !rows, %capacity: index, %groups: index,
                                  %n: index, %k: index, %sa: !scales, %sb: !scales,
                                  %ws: !workspace, %counters: !counters) kernel
        attributes {known_block_size = array<i32: 384, 1, 1>} {
      // Launched as a programmatic dependent: every access of global memory
      // after the grid before this one (T-PDL-1, T-PDL-2; it reads its offsets first).
      tile.grid_dependency_wait
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %c255 = arith.constant 255 : index
      %c256 = arith.constant 256 : index
      %copies = arith.constant 2 : i32
      %consumers = arith.constant 2 : i32
      %zero32 = arith.constant 0 : i32
      %false = arith.constant false
      %true = arith.constant true
      %tid = gpu.thread_id x
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %n255 = arith.addi %n, %c255 : index
      %tiles_n = arith.divui %n255, %c256 : index
      %k127 = arith.addi %k, %c127 : index
      %slices = arith.divui %k127, %c128 : index
      // The work list: every group's tiles in group order, as tile.work_unit
      // split_k assigns them (T-TILE-7): whole tiles round-robin, and where
      // the last wave would leave half the CTAs idle, its tiles split along K.
      %total = func.call @count_tiles(%bounds, %capacity, %groups, %tiles_n)
          : (!rows, index, index, index) -> index
      %ra = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x128x!ea, 3>
      %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x256x128x!eb, 3>
      %staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64x!ec, 3>
      %full = tile.mbarrier_alloc : !bars
      %empty = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %a : !da8
        tile.tma_prefetch_descriptor %b : !db8
        scf.for %s = %c0 to %c4 step %c1 {
          tile.mbarrier_init %full[%s], %copies : !bars
          tile.mbarrier_init %empty[%s], %consumers : !bars
        }
      }
      gpu.barrier
      // The producer at 56 registers (its search of the groups spilled at
      // the dense kernel's 40 and 48), the consumers at 224: 56 + 2 x 224 =
      // 504, the 3 x 168 the CTA is launched with (T-WS-3).
      tile.warp_specialize producer(registers = 56) {
        // One thread issues the copies, starting at phase 1 of the empty
        // barriers (which fresh barriers report as complete).
        scf.if %first {
          // Each role counts its units (a 64-bit division: counted before
          // the roles split, a value live across ptxas's division routine
          // was spilled).
          %units = tile.work_count split_k tiles %total iters %slices worker %cta of %ctas
          %pt:4 = scf.for %i = %c0 to %units step %c1
              iter_args(%s0 = %c0, %ph0 = %true, %g0 = %zero32, %base0 = %zero32)
              -> (index, i1, i32, i32) {
            %tile, %kfirst, %kcount, %fixup, %split, %splits = tile.work_unit %i of split_k
                tiles %total iters %slices worker %cta of %ctas
            %g, %start, %count, %tiles_m, %t, %g32, %base = func.call @locate(%bounds, %capacity, %groups,
                %tiles_n, %tile, %g0, %base0)
                : (!rows, index, index, index, index, i32, i32)
                -> (index, index, index, index, index, i32, i32)
            %pid_m, %pid_n = tile.tile_coord %t in [%tiles_m, %tiles_n] group 4
            %mrow = arith.muli %pid_m, %c128 : index
            %m0 = arith.addi %start, %mrow : index
            %b0 = arith.muli %g, %n : index
            %ncol = arith.muli %pid_n, %c256 : index
            %n0 = arith.addi %b0, %ncol : index
            %kend = arith.addi %kfirst, %kcount : index
            %p:2 = scf.for %l = %kfirst to %kend step %c1 iter_args(%s = %s0, %ph = %ph0) -> (index, i1) {
              tile.mbarrier_wait_parity %empty[%s], %ph : !bars
              %k0 = arith.muli %l, %c128 : index
              tile.tma_copy %a[%m0, %k0] to %ra[%s], %full[%s] : !da8, memref<4x128x128x!ea, 3>, !bars
              tile.tma_copy %b[%n0, %k0] to %rb[%s], %full[%s] : !db8, memref<4x256x128x!eb, 3>, !bars
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c4 : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %ns, %nph : index, i1
            }
            scf.yield %p#0, %p#1, %g32, %base : index, i1, i32, i32
          }
        }
      } consumers(2, registers = 224) {
      ^bb0(%wg: index):
        %row = arith.muli %wg, %c64 : index
        %lane = arith.remui %tid, %c128 : index
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero = arith.constant dense<0.0> : vector<128xf32>
        %units = tile.work_count split_k tiles %total iters %slices worker %cta of %ctas
        %ct:2 = scf.for %i = %c0 to %units step %c1
            iter_args(%s0 = %c0, %ph0 = %false) -> (index, i1) {
          %tile, %kfirst, %kcount, %fixup, %split, %splits = tile.work_unit %i of split_k
              tiles %total iters %slices worker %cta of %ctas
          %kend = arith.addi %kfirst, %kcount : index
          %r:4 = scf.for %l = %kfirst to %kend step %c1
              iter_args(%acc = %zero, %s = %s0, %ph = %ph0, %prev = %c0)
              -> (vector<128xf32>, index, i1, index) {
            tile.mbarrier_wait_parity %full[%s], %ph : !bars
            %next_acc = tile.warpgroup_mma %ra[%s, %row, %c0], %rb[%s, %c0, %c0], %acc
                {shape = array<i64: 64, 256, 128>, wait = 1 : i32}
                : memref<4x128x128x!ea, 3>, memref<4x256x128x!eb, 3>, vector<128xf32>
            // The previous stage's wgmmas are done (wait depth 1): one
            // thread of the warpgroup releases it.
            %later = arith.cmpi ugt, %l, %kfirst : index
            %release = arith.andi %later, %signals : i1
            scf.if %release {
              %tok = tile.mbarrier_arrive %empty[%prev] : !bars -> !tile.mbarrier_token
            }
            %next = arith.addi %s, %c1 : index
            %wrap = arith.cmpi eq, %next, %c4 : index
            %ns = arith.select %wrap, %c0, %next : index
            %nph = arith.xori %ph, %wrap : i1
            scf.yield %next_acc, %ns, %nph, %s : vector<128xf32>, index, i1, index
          }
          tile.wgmma_wait_group 0
          // The tile's last stage.
          scf.if %signals {
            %tok = tile.mbarrier_arrive %empty[%r#3] : !bars -> !tile.mbarrier_token
          }
          // A tile of the last wave split with other CTAs along K: the last
          // of its units to finish sums the partials (T-TILE-6).
          %wg_fixup = arith.muli %fixup, %c2 : index
          %slot = arith.addi %wg_fixup, %wg : index
          %slots = arith.maxui %splits, %c2 : index
          %last, %sum = tile.split_k_reduce %r#0, %ws, %counters, tile %slot,
              split %split of %splits slots %slots : vector<128xf32>, !workspace, !counters
          // Where the tile is (found only now: nothing of it stays live
          // across the MMAs), from group 0 (@locate_by_scan).
          %g, %start, %count, %tiles_m, %t = func.call @locate_by_scan(%bounds, %capacity, %groups, %tiles_n, %tile)
              : (!rows, index, index, index, index) -> (index, index, index, index, index)
          // Rows inside the group: the TMA-store epilogue (its stores run
          // while the next tile's MMAs do); the group's last, partial row
          // tile: bounded stores that stop at the group's end.
          scf.if %last {
            // Rows past C (offsets beyond M) are not stored: TMA clips
            // them, and the bounded stores stop at C's last row too.
            %c_rows = memref.dim %cm, %c0 : memref<?x?x!ec>
            %group_end = arith.addi %start, %count : index
            %end = arith.minui %group_end, %c_rows : index
            %pid_m, %pid_n = tile.tile_coord %t in [%tiles_m, %tiles_n] group 4
            %mrow = arith.muli %pid_m, %c128 : index
            %m0 = arith.addi %start, %mrow : index
            %n0 = arith.muli %pid_n, %c256 : index
            %m1 = arith.addi %m0, %row : index
            %m_end = arith.addi %m0, %c128 : index
            %inside = arith.cmpi ule, %m_end, %end : index
            // Dequantize: A's row scales, B's (the group's rows of the
            // (G N) x K matrix); one element each for per-tensor scales.
            %b0 = arith.muli %g, %n : index
            %nb = arith.addi %b0, %n0 : index
            %scaled = tile.warpgroup_scale %sum rows %sa[%m1] : !scales columns %sb[%nb] : !scales
                {shape = array<i64: 64, 256>} : vector<128xf32>
            scf.if %inside {
              tile.warpgroup_tma_store %scaled, %staging[%wg] to %c[%m1, %n0] {shape = array<i64: 64, 256>}
                  : vector<128xf32>, memref<2x2x64x64x!ec, 3>, !dc8
            } else {
              tile.warpgroup_mma_store %scaled, %cm[%m1, %n0] bounds [%end, %n] {shape = array<i64: 64, 256>}
                  : vector<128xf32>, memref<?x?x!ec>
            }
          }
          scf.yield %r#1, %r#2 : index, i1
        }
        // The last TMA stores have written C.
        scf.if %signals {
          tile.bulk_wait_group 0
        }
      }
      gpu.return
    }

    // The grouped product with DeepSeek-V3's block scales (DeepGEMM's
    // grouped FP8 GEMM, contiguous and masked): C[rows of g] = the sum over
    // K blocks kb of A[rows of g] B_g^T restricted to kb, A's rows scaled by
    // sa[row, kb] (1 x 128 blocks of the stacked A) and group g's 128 x 128
    // blocks of B by sb[g ceil(N / 128) + column block, kb]. The consumer
    // of python/tile/kernels/gemm_sm90_fp8.mlir's @gemm_fp8_nt_blockwise
    // (128x128 tiles, two partial accumulators in turn, each K block
    // promoted into f32 under the next one's wgmmas) over this file's
    // grouped work list: every group's tiles in group order, round-robin
    // over the CTAs, each role finding a tile's group by walking on from its
    // previous tile's (@locate), both before the tile's loads and MMAs (the
    // scales need the group). A group's last, partial row tile is stored
    // with bounds, as @grouped_gemm_fp8_nt's. The main loop and its tail are
    // @gemm_fp8_nt_blockwise's (B's scale row aside): a fix there goes here
    // too.
    gpu.func @grouped_gemm_fp8_nt_blockwise(%a: !da8, %b: !db8h, %c: !dc8, %cm: memref<?x?x!ec>,
                                            %bounds: !rows, %capacity: index, %groups: index,
                                            %n: index, %k: index, %sa: !block_scales,
                                            %sb: !block_scales) kernel
        attributes {known_block_size = array<i32: 384, 1, 1>} {
      // Launched as a programmatic dependent: every access of global memory
      // after the grid before this one (T-PDL-1, T-PDL-2; it reads its offsets first).
      tile.grid_dependency_wait
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %copies = arith.constant 2 : i32
      %consumer_threads = arith.constant 256 : i32
      %true = arith.constant true
      %false = arith.constant false
      %tid = gpu.thread_id x
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %zero32 = arith.constant 0 : i32
      %n127 = arith.addi %n, %c127 : index
      %tiles_n = arith.divui %n127, %c128 : index
      // Every group's 128x128 tiles in group order, round-robin over the CTAs.
      %tiles = func.call @count_tiles(%bounds, %capacity, %groups, %tiles_n)
          : (!rows, index, index, index) -> index
      // A's rows (the scales' first dimension; scale rows past it clamp).
      %m = memref.dim %sa, %c0 : !block_scales
      %k127 = arith.addi %k, %c127 : index
      %slices = arith.divui %k127, %c128 : index
      %ra = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<6x128x128x!ea, 3>
      %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<6x128x128x!eb, 3>
      %staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64x!ec, 3>
      %full = tile.mbarrier_alloc : !bars6
      %empty = tile.mbarrier_alloc : !bars6
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %a : !da8
        tile.tma_prefetch_descriptor %b : !db8h
        scf.for %s = %c0 to %c6 step %c1 {
          tile.mbarrier_init %full[%s], %copies : !bars6
          tile.mbarrier_init %empty[%s], %consumer_threads : !bars6
        }
      }
      gpu.barrier
      tile.warp_specialize producer(registers = 40) {
        scf.if %first {
          %pt:4 = scf.for %tile = %cta to %tiles step %ctas
              iter_args(%s0 = %c0, %ph0 = %true, %g0 = %zero32, %base0 = %zero32)
              -> (index, i1, i32, i32) {
            %g, %start, %count, %tiles_m, %local, %g32, %base = func.call @locate(%bounds, %capacity,
                %groups, %tiles_n, %tile, %g0, %base0)
                : (!rows, index, index, index, index, i32, i32)
                -> (index, index, index, index, index, i32, i32)
            %pid_m, %pid_n = tile.tile_coord %local in [%tiles_m, %tiles_n] group 4
            %mrow = arith.muli %pid_m, %c128 : index
            %m0 = arith.addi %start, %mrow : index
            %b0 = arith.muli %g, %n : index
            %ncol = arith.muli %pid_n, %c128 : index
            %n0 = arith.addi %b0, %ncol : index
            %p:2 = scf.for %t = %c0 to %slices step %c1 iter_args(%s = %s0, %ph = %ph0) -> (index, i1) {
              tile.mbarrier_wait_parity %empty[%s], %ph : !bars6
              %k0 = arith.muli %t, %c128 : index
              tile.tma_copy %a[%m0, %k0] to %ra[%s], %full[%s] : !da8, memref<6x128x128x!ea, 3>, !bars6
              tile.tma_copy %b[%n0, %k0] to %rb[%s], %full[%s] : !db8h, memref<6x128x128x!eb, 3>, !bars6
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c6 : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %ns, %nph : index, i1
            }
            scf.yield %p#0, %p#1, %g32, %base : index, i1, i32, i32
          }
        }
      } consumers(2, registers = 232) {
      ^bb0(%wg: index):
        %row = arith.muli %wg, %c64 : index
        %lane = arith.remui %tid, %c128 : index
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero = arith.constant dense<0.0> : vector<64xf32>
        %ct:4 = scf.for %tile = %cta to %tiles step %ctas
            iter_args(%s0 = %c0, %ph0 = %false, %g0 = %zero32, %base0 = %zero32)
            -> (index, i1, i32, i32) {
          %g, %start, %count, %tiles_m, %local, %g32, %base = func.call @locate(%bounds, %capacity,
              %groups, %tiles_n, %tile, %g0, %base0)
              : (!rows, index, index, index, index, i32, i32)
              -> (index, index, index, index, index, i32, i32)
          %pid_m, %pid_n = tile.tile_coord %local in [%tiles_m, %tiles_n] group 4
          %mrow = arith.muli %pid_m, %c128 : index
          %m0 = arith.addi %start, %mrow : index
          %n0 = arith.muli %pid_n, %c128 : index
          %m1 = arith.addi %m0, %row : index
          // The group's 128 x 128 blocks of B are rows g ceil(N / 128) ..
          // of sb.
          %sb_first = arith.muli %g, %tiles_n : index
          %sb_row = arith.addi %sb_first, %pid_n : index
          // The unit's first block in flight, then its blocks in pairs: the
          // partial issued last is promoted first.
          %f0_rows = memref.subview %sa[%c0, %c0] [%m, 1] [1, 1]
              : !block_scales to memref<?xf32, strided<[?], offset: ?>>
          %f0_a = tile.warpgroup_rows %f0_rows[%m1] {shape = array<i64: 64, 128>}
              : memref<?xf32, strided<[?], offset: ?>> -> vector<2xf32>
          %f0_b = memref.load %sb[%sb_row, %c0] : !block_scales
          %f0_bs = vector.broadcast %f0_b : f32 to vector<2xf32>
          %f0 = arith.mulf %f0_a, %f0_bs : vector<2xf32>
          tile.mbarrier_wait_parity %full[%s0], %ph0 : !bars6
          %p0 = tile.warpgroup_mma %ra[%s0, %row, %c0], %rb[%s0, %c0, %c0], %zero
              {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
              : memref<6x128x128x!ea, 3>, memref<6x128x128x!eb, 3>, vector<64xf32>
          %s1_inc = arith.addi %s0, %c1 : index
          %s1_wrap = arith.cmpi eq, %s1_inc, %c6 : index
          %s1 = arith.select %s1_wrap, %c0, %s1_inc : index
          %ph1 = arith.xori %ph0, %s1_wrap : i1
          %last_block = arith.subi %slices, %c1 : index
          %pairs = arith.divui %last_block, %c2 : index
          %r:5 = scf.for %j = %c0 to %pairs step %c1
              iter_args(%acc = %zero, %pa = %p0, %fa = %f0, %s = %s1, %ph = %ph1)
              -> (vector<64xf32>, vector<64xf32>, vector<2xf32>, index, i1) {
            %t0 = arith.muli %j, %c2 : index
            %t1 = arith.addi %t0, %c1 : index
            %t2 = arith.addi %t0, %c2 : index
            %sp_first = arith.cmpi eq, %s, %c0 : index
            %sp_dec = arith.subi %s, %c1 : index
            %sp = arith.select %sp_first, %c5, %sp_dec : index
            %fb_rows = memref.subview %sa[%c0, %t1] [%m, 1] [1, 1]
                : !block_scales to memref<?xf32, strided<[?], offset: ?>>
            %fb_a = tile.warpgroup_rows %fb_rows[%m1] {shape = array<i64: 64, 128>}
                : memref<?xf32, strided<[?], offset: ?>> -> vector<2xf32>
            %fb_b = memref.load %sb[%sb_row, %t1] : !block_scales
            %fb_bs = vector.broadcast %fb_b : f32 to vector<2xf32>
            %fb = arith.mulf %fb_a, %fb_bs : vector<2xf32>
            tile.mbarrier_wait_parity %full[%s], %ph : !bars6
            // Block t0 + 1 issued: block t0 is done, its stage free.
            %pb = tile.warpgroup_mma %ra[%s, %row, %c0], %rb[%s, %c0, %c0], %zero
                {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
                : memref<6x128x128x!ea, 3>, memref<6x128x128x!eb, 3>, vector<64xf32>
            %tok0 = tile.mbarrier_arrive %empty[%sp] : !bars6 -> !tile.mbarrier_token
            %acc1_scaled = tile.warpgroup_scale %pa row_factors %fa : vector<2xf32>
                {shape = array<i64: 64, 128>} : vector<64xf32>
            %acc1_sum = arith.addf %acc, %acc1_scaled fastmath<contract> : vector<64xf32>
            %acc1 = tile.wgmma_fence_operand %acc1_sum : vector<64xf32>
            %s2_inc = arith.addi %s, %c1 : index
            %s2_wrap = arith.cmpi eq, %s2_inc, %c6 : index
            %s2 = arith.select %s2_wrap, %c0, %s2_inc : index
            %ph2 = arith.xori %ph, %s2_wrap : i1
            %fa2_rows = memref.subview %sa[%c0, %t2] [%m, 1] [1, 1]
                : !block_scales to memref<?xf32, strided<[?], offset: ?>>
            %fa2_a = tile.warpgroup_rows %fa2_rows[%m1] {shape = array<i64: 64, 128>}
                : memref<?xf32, strided<[?], offset: ?>> -> vector<2xf32>
            %fa2_b = memref.load %sb[%sb_row, %t2] : !block_scales
            %fa2_bs = vector.broadcast %fa2_b : f32 to vector<2xf32>
            %fa2 = arith.mulf %fa2_a, %fa2_bs : vector<2xf32>
            tile.mbarrier_wait_parity %full[%s2], %ph2 : !bars6
            %pa2 = tile.warpgroup_mma %ra[%s2, %row, %c0], %rb[%s2, %c0, %c0], %zero
                {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
                : memref<6x128x128x!ea, 3>, memref<6x128x128x!eb, 3>, vector<64xf32>
            %tok1 = tile.mbarrier_arrive %empty[%s] : !bars6 -> !tile.mbarrier_token
            %acc2_scaled = tile.warpgroup_scale %pb row_factors %fb : vector<2xf32>
                {shape = array<i64: 64, 128>} : vector<64xf32>
            %acc2_sum = arith.addf %acc1, %acc2_scaled fastmath<contract> : vector<64xf32>
            %acc2 = tile.wgmma_fence_operand %acc2_sum : vector<64xf32>
            %s3_inc = arith.addi %s2, %c1 : index
            %s3_wrap = arith.cmpi eq, %s3_inc, %c6 : index
            %s3 = arith.select %s3_wrap, %c0, %s3_inc : index
            %ph3 = arith.xori %ph2, %s3_wrap : i1
            scf.yield %acc2, %pa2, %fa2, %s3, %ph3
                : vector<64xf32>, vector<64xf32>, vector<2xf32>, index, i1
          }
          // The last block in flight (%r#1, in the stage before %r#3), and with
          // an even count one more block.
          %odd = arith.remui %slices, %c2 : index
          %even = arith.cmpi eq, %odd, %c0 : index
          %sl_first = arith.cmpi eq, %r#3, %c0 : index
          %sl_dec = arith.subi %r#3, %c1 : index
          %sl = arith.select %sl_first, %c5, %sl_dec : index
          %tail:3 = scf.if %even -> (vector<64xf32>, index, i1) {
            %fl_rows = memref.subview %sa[%c0, %last_block] [%m, 1] [1, 1]
                : !block_scales to memref<?xf32, strided<[?], offset: ?>>
            %fl_a = tile.warpgroup_rows %fl_rows[%m1] {shape = array<i64: 64, 128>}
                : memref<?xf32, strided<[?], offset: ?>> -> vector<2xf32>
            %fl_b = memref.load %sb[%sb_row, %last_block] : !block_scales
            %fl_bs = vector.broadcast %fl_b : f32 to vector<2xf32>
            %fl = arith.mulf %fl_a, %fl_bs : vector<2xf32>
            tile.mbarrier_wait_parity %full[%r#3], %r#4 : !bars6
            %pl = tile.warpgroup_mma %ra[%r#3, %row, %c0], %rb[%r#3, %c0, %c0], %zero
                {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
                : memref<6x128x128x!ea, 3>, memref<6x128x128x!eb, 3>, vector<64xf32>
            %tok2 = tile.mbarrier_arrive %empty[%sl] : !bars6 -> !tile.mbarrier_token
            %acc1_scaled = tile.warpgroup_scale %r#1 row_factors %r#2 : vector<2xf32>
                {shape = array<i64: 64, 128>} : vector<64xf32>
            %acc1 = arith.addf %r#0, %acc1_scaled fastmath<contract> : vector<64xf32>
            tile.wgmma_wait_group 0
            %tok3 = tile.mbarrier_arrive %empty[%r#3] : !bars6 -> !tile.mbarrier_token
            %acc2_scaled = tile.warpgroup_scale %pl row_factors %fl : vector<2xf32>
                {shape = array<i64: 64, 128>} : vector<64xf32>
            %acc2 = arith.addf %acc1, %acc2_scaled fastmath<contract> : vector<64xf32>
            %sn_inc = arith.addi %r#3, %c1 : index
            %sn_wrap = arith.cmpi eq, %sn_inc, %c6 : index
            %sn = arith.select %sn_wrap, %c0, %sn_inc : index
            %phn = arith.xori %r#4, %sn_wrap : i1
            scf.yield %acc2, %sn, %phn : vector<64xf32>, index, i1
          } else {
            tile.wgmma_wait_group 0
            %tok2 = tile.mbarrier_arrive %empty[%sl] : !bars6 -> !tile.mbarrier_token
            %acc1_scaled = tile.warpgroup_scale %r#1 row_factors %r#2 : vector<2xf32>
                {shape = array<i64: 64, 128>} : vector<64xf32>
            %acc1 = arith.addf %r#0, %acc1_scaled fastmath<contract> : vector<64xf32>
            scf.yield %acc1, %r#3, %r#4 : vector<64xf32>, index, i1
          }
          // Rows inside the group: the TMA-store epilogue; the group's last,
          // partial row tile: bounded stores that stop at the group's end
          // (and C's).
          %c_rows = memref.dim %cm, %c0 : memref<?x?x!ec>
          %group_end = arith.addi %start, %count : index
          %end = arith.minui %group_end, %c_rows : index
          %m_end = arith.addi %m0, %c128 : index
          %inside = arith.cmpi ule, %m_end, %end : index
          scf.if %inside {
            tile.warpgroup_tma_store %tail#0, %staging[%wg] to %c[%m1, %n0] {shape = array<i64: 64, 128>}
                : vector<64xf32>, memref<2x2x64x64x!ec, 3>, !dc8
          } else {
            tile.warpgroup_mma_store %tail#0, %cm[%m1, %n0] bounds [%end, %n] {shape = array<i64: 64, 128>}
                : vector<64xf32>, memref<?x?x!ec>
          }
          scf.yield %tail#1, %tail#2, %g32, %base : index, i1, i32, i32
        }
        scf.if %signals {
          tile.bulk_wait_group 0
        }
      }
      gpu.return
    }

    // @grouped_gemm_fp8_nt on 128x128 tiles taken whole and round-robin,
    // each role locating a tile's group before its loads (@locate, walking
    // on from the previous tile's), as @grouped_gemm_fp8_nt_blockwise: for
    // many small groups, where @grouped_gemm_fp8_nt's 128x256 tiles pad a
    // group's rows and columns and its consumers search the groups from
    // group 0 after every tile (256 groups of 128 rows: 2.1-2.5x faster;
    // tile.ops.grouped.NARROW_MAX_ROWS). The main loop is @gemm_fp8_nt's
    // (wait depth 1), the epilogue its dequantizing one.
    gpu.func @grouped_gemm_fp8_nt_narrow(%a: !da8, %b: !db8h, %c: !dc8, %cm: memref<?x?x!ec>,
                                            %bounds: !rows, %capacity: index, %groups: index,
                                            %n: index, %k: index, %sa: !scales,
                                            %sb: !scales) kernel
        attributes {known_block_size = array<i32: 384, 1, 1>} {
      // Launched as a programmatic dependent: every access of global memory
      // after the grid before this one (T-PDL-1, T-PDL-2; it reads its offsets first).
      tile.grid_dependency_wait
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c6 = arith.constant 6 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %copies = arith.constant 2 : i32
      %consumers = arith.constant 2 : i32
      %true = arith.constant true
      %false = arith.constant false
      %tid = gpu.thread_id x
      %cta = gpu.block_id x
      %ctas = gpu.grid_dim x
      %zero32 = arith.constant 0 : i32
      %n127 = arith.addi %n, %c127 : index
      %tiles_n = arith.divui %n127, %c128 : index
      // Every group's 128x128 tiles in group order, round-robin over the CTAs.
      %tiles = func.call @count_tiles(%bounds, %capacity, %groups, %tiles_n)
          : (!rows, index, index, index) -> index
      %k127 = arith.addi %k, %c127 : index
      %slices = arith.divui %k127, %c128 : index
      %ra = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<6x128x128x!ea, 3>
      %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<6x128x128x!eb, 3>
      %staging = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64x!ec, 3>
      %full = tile.mbarrier_alloc : !bars6
      %empty = tile.mbarrier_alloc : !bars6
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %a : !da8
        tile.tma_prefetch_descriptor %b : !db8h
        scf.for %s = %c0 to %c6 step %c1 {
          tile.mbarrier_init %full[%s], %copies : !bars6
          tile.mbarrier_init %empty[%s], %consumers : !bars6
        }
      }
      gpu.barrier
      tile.warp_specialize producer(registers = 40) {
        scf.if %first {
          %pt:4 = scf.for %tile = %cta to %tiles step %ctas
              iter_args(%s0 = %c0, %ph0 = %true, %g0 = %zero32, %base0 = %zero32)
              -> (index, i1, i32, i32) {
            %g, %start, %count, %tiles_m, %local, %g32, %base = func.call @locate(%bounds, %capacity,
                %groups, %tiles_n, %tile, %g0, %base0)
                : (!rows, index, index, index, index, i32, i32)
                -> (index, index, index, index, index, i32, i32)
            %pid_m, %pid_n = tile.tile_coord %local in [%tiles_m, %tiles_n] group 4
            %mrow = arith.muli %pid_m, %c128 : index
            %m0 = arith.addi %start, %mrow : index
            %b0 = arith.muli %g, %n : index
            %ncol = arith.muli %pid_n, %c128 : index
            %n0 = arith.addi %b0, %ncol : index
            %p:2 = scf.for %t = %c0 to %slices step %c1 iter_args(%s = %s0, %ph = %ph0) -> (index, i1) {
              tile.mbarrier_wait_parity %empty[%s], %ph : !bars6
              %k0 = arith.muli %t, %c128 : index
              tile.tma_copy %a[%m0, %k0] to %ra[%s], %full[%s] : !da8, memref<6x128x128x!ea, 3>, !bars6
              tile.tma_copy %b[%n0, %k0] to %rb[%s], %full[%s] : !db8h, memref<6x128x128x!eb, 3>, !bars6
              %next = arith.addi %s, %c1 : index
              %wrap = arith.cmpi eq, %next, %c6 : index
              %ns = arith.select %wrap, %c0, %next : index
              %nph = arith.xori %ph, %wrap : i1
              scf.yield %ns, %nph : index, i1
            }
            scf.yield %p#0, %p#1, %g32, %base : index, i1, i32, i32
          }
        }
      } consumers(2, registers = 232) {
      ^bb0(%wg: index):
        %row = arith.muli %wg, %c64 : index
        %lane = arith.remui %tid, %c128 : index
        %signals = arith.cmpi eq, %lane, %c0 : index
        %zero = arith.constant dense<0.0> : vector<64xf32>
        %ct:4 = scf.for %tile = %cta to %tiles step %ctas
            iter_args(%s0 = %c0, %ph0 = %false, %g0 = %zero32, %base0 = %zero32)
            -> (index, i1, i32, i32) {
          %g, %start, %count, %tiles_m, %local, %g32, %base = func.call @locate(%bounds, %capacity,
              %groups, %tiles_n, %tile, %g0, %base0)
              : (!rows, index, index, index, index, i32, i32)
              -> (index, index, index, index, index, i32, i32)
          %pid_m, %pid_n = tile.tile_coord %local in [%tiles_m, %tiles_n] group 4
          %mrow = arith.muli %pid_m, %c128 : index
          %m0 = arith.addi %start, %mrow : index
          %n0 = arith.muli %pid_n, %c128 : index
          %m1 = arith.addi %m0, %row : index
          %r:4 = scf.for %t = %c0 to %slices step %c1
              iter_args(%acc = %zero, %s = %s0, %ph = %ph0, %prev = %c0)
              -> (vector<64xf32>, index, i1, index) {
            tile.mbarrier_wait_parity %full[%s], %ph : !bars6
            %next_acc = tile.warpgroup_mma %ra[%s, %row, %c0], %rb[%s, %c0, %c0], %acc
                {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
                : memref<6x128x128x!ea, 3>, memref<6x128x128x!eb, 3>, vector<64xf32>
            // The previous stage's wgmmas are done (wait depth 1): one
            // thread of the warpgroup releases it.
            %later = arith.cmpi ugt, %t, %c0 : index
            %release = arith.andi %later, %signals : i1
            scf.if %release {
              %tok = tile.mbarrier_arrive %empty[%prev] : !bars6 -> !tile.mbarrier_token
            }
            %next = arith.addi %s, %c1 : index
            %wrap = arith.cmpi eq, %next, %c6 : index
            %ns = arith.select %wrap, %c0, %next : index
            %nph = arith.xori %ph, %wrap : i1
            scf.yield %next_acc, %ns, %nph, %s : vector<64xf32>, index, i1, index
          }
          tile.wgmma_wait_group 0
          scf.if %signals {
            %tok = tile.mbarrier_arrive %empty[%r#3] : !bars6 -> !tile.mbarrier_token
          }
          // Dequantize: A's row scales, B's (the group's rows of the (G N) x
          // K matrix); one element each for per-tensor scales.
          %b0 = arith.muli %g, %n : index
          %nb = arith.addi %b0, %n0 : index
          %scaled = tile.warpgroup_scale %r#0 rows %sa[%m1] : !scales columns %sb[%nb] : !scales
              {shape = array<i64: 64, 128>} : vector<64xf32>
          // Rows inside the group: the TMA-store epilogue; the group's last,
          // partial row tile: bounded stores that stop at the group's end
          // (and C's).
          %c_rows = memref.dim %cm, %c0 : memref<?x?x!ec>
          %group_end = arith.addi %start, %count : index
          %end = arith.minui %group_end, %c_rows : index
          %m_end = arith.addi %m0, %c128 : index
          %inside = arith.cmpi ule, %m_end, %end : index
          scf.if %inside {
            tile.warpgroup_tma_store %scaled, %staging[%wg] to %c[%m1, %n0] {shape = array<i64: 64, 128>}
                : vector<64xf32>, memref<2x2x64x64x!ec, 3>, !dc8
          } else {
            tile.warpgroup_mma_store %scaled, %cm[%m1, %n0] bounds [%end, %n] {shape = array<i64: 64, 128>}
                : vector<64xf32>, memref<?x?x!ec>
          }
          scf.yield %r#1, %r#2, %g32, %base : index, i1, i32, i32
        }
        scf.if %signals {
          tile.bulk_wait_group 0
        }
      }
      gpu.return
    }
  }

  // ((p i + q j) mod 5) - 2 at (i, j) of a rows x cols matrix.
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

  // Runs the grouped product over `groups` groups whose row counts are
  // ((7 g + 3) * 37) mod 301 (27 to 286: partial row tiles, up to three),
  // but group 4 empty and group 6 of exactly 256 rows,
  // stacked (`masked` false) or each at g * 304 (`masked`), and returns the
  // number of elements of C whose relative difference from the host's
  // product exceeds 1e-2, plus the C elements outside every group that were
  // written (C starts as NaN). `ctas` CTAs (132: one per SM of an H100/H200
  // SXM; fewer: each takes tiles of several groups).
  func.func @run(%groups: index, %n: index, %k: index, %masked: i1, %ctas: index) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c37 = arith.constant 37 : index
    %c301 = arith.constant 301 : index
    %c304 = arith.constant 304 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c256 = arith.constant 256 : index
    %c384 = arith.constant 384 : index
    %true_ = arith.constant true
    // The 4-stage ring (64 KB of A, 128 KB of B tiles) and 2 x 2 staging
    // buffers of 8 KB.
    %smem = arith.constant 229376 : i32
    %hstarts = memref.alloc(%groups) : !rows
    %hcounts = memref.alloc(%groups) : !rows
    %hbounds = memref.alloc(%groups) : !rows
    %m = scf.for %g = %c0 to %groups step %c1 iter_args(%at = %c0) -> (index) {
      %g7 = arith.muli %g, %c7 : index
      %g73 = arith.addi %g7, %c3 : index
      %x = arith.muli %g73, %c37 : index
      %some = arith.remui %x, %c301 : index
      %is4 = arith.cmpi eq, %g, %c4 : index
      %is6 = arith.cmpi eq, %g, %c6 : index
      %some6 = arith.select %is6, %c256, %some : index
      %count = arith.select %is4, %c0, %some6 : index
      %slot = arith.muli %g, %c304 : index
      %start = arith.select %masked, %slot, %at : index
      %start32 = arith.index_cast %start : index to i32
      %count32 = arith.index_cast %count : index to i32
      memref.store %start32, %hstarts[%g] : !rows
      memref.store %count32, %hcounts[%g] : !rows
      %after = arith.addi %at, %count : index
      %after32 = arith.index_cast %after : index to i32
      %bound = arith.select %masked, %count32, %after32 : i32
      memref.store %bound, %hbounds[%g] : !rows
      %slot_end = arith.addi %slot, %c304 : index
      %next = arith.select %masked, %slot_end, %after : index
      scf.yield %next : index
    }
    %capacity = arith.select %masked, %c304, %c0 : index
    %gn = arith.muli %groups, %n : index
    %ha = memref.alloc(%m, %k) : memref<?x?x!e>
    %hb = memref.alloc(%gn, %k) : memref<?x?x!e>
    %hc = memref.alloc(%m, %n) : memref<?x?x!e>
    func.call @fill(%ha, %c3, %c7) : (memref<?x?x!e>, index, index) -> ()
    func.call @fill(%hb, %c2, %c3) : (memref<?x?x!e>, index, index) -> ()
    %nan = arith.constant 0x7FC00000 : f32
    %nan_e = arith.truncf %nan : f32 to !e
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        memref.store %nan_e, %hc[%i, %j] : memref<?x?x!e>
      }
    }
    %da = gpu.alloc (%m, %k) : memref<?x?x!e>
    %db = gpu.alloc (%gn, %k) : memref<?x?x!e>
    %dc = gpu.alloc (%m, %n) : memref<?x?x!e>
    %dbounds = gpu.alloc (%groups) : !rows
    gpu.memcpy %da, %ha : memref<?x?x!e>, memref<?x?x!e>
    gpu.memcpy %db, %hb : memref<?x?x!e>, memref<?x?x!e>
    gpu.memcpy %dc, %hc : memref<?x?x!e>, memref<?x?x!e>
    gpu.memcpy %dbounds, %hbounds : !rows, !rows
    %ta = tile.tma_create_descriptor %da : memref<?x?x!e> -> !da
    %tb = tile.tma_create_descriptor %db : memref<?x?x!e> -> !db
    %tc = tile.tma_create_descriptor %dc : memref<?x?x!e> -> !dc
    // Split tiles' workspace and counters (zero), as python/tile/kernels/gemm_sm90.mlir
    // sizes them for its CTAs.
    %c1024 = arith.constant 1024 : index
    %ws_rows = arith.muli %ctas, %c1024 : index
    %ws = gpu.alloc (%ws_rows) : !workspace
    %halves = arith.muli %ctas, %c4 : index
    %counters = gpu.alloc (%halves) : !counters
    %zero_count = arith.constant 0 : i32
    gpu.memset %counters, %zero_count : !counters, i32
    gpu.launch_func @kernels::@grouped_gemm_nt blocks in (%ctas, %c1, %c1) threads in (%c384, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%ta : !da, %tb : !db, %tc : !dc, %dc : memref<?x?x!e>, %dbounds : !rows,
             %capacity : index, %groups : index, %n : index, %k : index,
             %ws : !workspace, %counters : !counters)
    gpu.memcpy %hc, %dc : memref<?x?x!e>, memref<?x?x!e>
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tol = arith.constant 1.0e-2 : f32
    %onef = arith.constant 1.0 : f32
    // Every row of C: inside group g it must match; outside every group it
    // must still be NaN.
    %bad = scf.for %i = %c0 to %m step %c1 iter_args(%b0 = %none) -> (i32) {
      %i32 = arith.index_cast %i : index to i32
      %owner = scf.for %g = %c0 to %groups step %c1 iter_args(%o = %groups) -> (index) {
        %s = memref.load %hstarts[%g] : !rows
        %cnt = memref.load %hcounts[%g] : !rows
        %e = arith.addi %s, %cnt : i32
        %ge = arith.cmpi sge, %i32, %s : i32
        %lt = arith.cmpi slt, %i32, %e : i32
        %in = arith.andi %ge, %lt : i1
        %o2 = arith.select %in, %g, %o : index
        scf.yield %o2 : index
      }
      %grouped = arith.cmpi ult, %owner, %groups : index
      %row = scf.for %j = %c0 to %n step %c1 iter_args(%b = %b0) -> (i32) {
        %got = memref.load %hc[%i, %j] : memref<?x?x!e>
        %gf = arith.extf %got : !e to f32
        %off = scf.if %grouped -> (i1) {
          %gn0 = arith.muli %owner, %n : index
          %brow = arith.addi %gn0, %j : index
          %ref = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
            %x = memref.load %ha[%i, %l] : memref<?x?x!e>
            %y = memref.load %hb[%brow, %l] : memref<?x?x!e>
            %xf = arith.extf %x : !e to f32
            %yf = arith.extf %y : !e to f32
            %p = math.fma %xf, %yf, %acc : f32
            scf.yield %p : f32
          }
          %d = arith.subf %gf, %ref : f32
          %ad = math.absf %d : f32
          %ar = math.absf %ref : f32
          %scale = arith.maximumf %ar, %onef : f32
          %rel = arith.divf %ad, %scale : f32
          // NaN (never written) compares false: count it as wrong.
          %ok = arith.cmpf ole, %rel, %tol : f32
          %wrong = arith.xori %ok, %true_ : i1
          scf.yield %wrong : i1
        } else {
          %untouched = arith.cmpf uno, %gf, %gf : f32
          %written = arith.xori %untouched, %true_ : i1
          scf.yield %written : i1
        }
        %inc = arith.select %off, %one, %none : i32
        %nb = arith.addi %b, %inc : i32
        scf.yield %nb : i32
      }
      scf.yield %row : i32
    }
    gpu.dealloc %da : memref<?x?x!e>
    gpu.dealloc %db : memref<?x?x!e>
    gpu.dealloc %dc : memref<?x?x!e>
    gpu.dealloc %dbounds : !rows
    gpu.dealloc %ws : !workspace
    gpu.dealloc %counters : !counters
    memref.dealloc %ha : memref<?x?x!e>
    memref.dealloc %hb : memref<?x?x!e>
    memref.dealloc %hc : memref<?x?x!e>
    memref.dealloc %hstarts : !rows
    memref.dealloc %hcounts : !rows
    memref.dealloc %hbounds : !rows
    return %bad : i32
  }

  // The e4m3 bit pattern (exponent bias 7, 1.0 = 0x38, 2.0 = 0x40, sign in
  // bit 7) of ((p i + q j) mod 5) - 2 at (i, j) of a rows x cols byte
  // buffer, row-major: small integers, exact in e4m3.
  func.func @fill8(%h: memref<?xi8>, %rows: index, %cols: index, %p: index, %q: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %code0 = arith.constant 0 : i8
    %code1 = arith.constant 56 : i8
    %code2 = arith.constant 64 : i8
    %sign = arith.constant -128 : i8
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %ip = arith.muli %i, %p : index
        %jq = arith.muli %j, %q : index
        %s = arith.addi %ip, %jq : index
        %r = arith.remui %s, %c5 : index
        // r = 0, 1, 2, 3, 4 is -2, -1, 0, 1, 2.
        %c2 = arith.constant 2 : index
        %c3 = arith.constant 3 : index
        %big = arith.cmpi ne, %r, %c1 : index
        %small = arith.cmpi ne, %r, %c3 : index
        %one = arith.select %small, %code2, %code1 : i8
        %mag = arith.select %big, %one, %code1 : i8
        %zero = arith.cmpi eq, %r, %c2 : index
        %m = arith.select %zero, %code0, %mag : i8
        %neg = arith.cmpi ult, %r, %c2 : index
        %sm = arith.ori %m, %sign : i8
        %code = arith.select %neg, %sm, %m : i8
        %row = arith.muli %i, %cols : index
        %at = arith.addi %row, %j : index
        memref.store %code, %h[%at] : memref<?xi8>
      }
    }
    return
  }

  // Scale factor i: (1 + (i mod 3) / 4) times `base` (exact in f32).
  func.func @factors(%h: !scales, %base: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %quarter = arith.constant 0.25 : f32
    %one = arith.constant 1.0 : f32
    %count = memref.dim %h, %c0 : !scales
    scf.for %i = %c0 to %count step %c1 {
      %r = arith.remui %i, %c3 : index
      %ri = arith.index_cast %r : index to i32
      %rf = arith.sitofp %ri : i32 to f32
      %f = math.fma %rf, %quarter, %one : f32
      %v = arith.mulf %f, %base : f32
      memref.store %v, %h[%i] : !scales
    }
    return
  }

  // @run for @grouped_gemm_fp8_nt: the same groups, e4m3 operands with
  // @fill's values, row-wise scales (one per row of A and of the (G N) x K
  // B), C in !ec.
  func.func @run_fp8(%groups: index, %n: index, %k: index, %masked: i1, %ctas: index,
                     %narrow: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c37 = arith.constant 37 : index
    %c256 = arith.constant 256 : index
    %c301 = arith.constant 301 : index
    %c304 = arith.constant 304 : index
    %c384 = arith.constant 384 : index
    %true_ = arith.constant true
    // The 4-stage ring (64 KB of A, 128 KB of B tiles) and 2 x 2 staging
    // buffers of 8 KB.
    %smem = arith.constant 229376 : i32
    %hstarts = memref.alloc(%groups) : !rows
    %hcounts = memref.alloc(%groups) : !rows
    %hbounds = memref.alloc(%groups) : !rows
    %m = scf.for %g = %c0 to %groups step %c1 iter_args(%at = %c0) -> (index) {
      %g7 = arith.muli %g, %c7 : index
      %g73 = arith.addi %g7, %c3 : index
      %x = arith.muli %g73, %c37 : index
      %some = arith.remui %x, %c301 : index
      %is4 = arith.cmpi eq, %g, %c4 : index
      %is6 = arith.cmpi eq, %g, %c6 : index
      %some6 = arith.select %is6, %c256, %some : index
      %count = arith.select %is4, %c0, %some6 : index
      %slot = arith.muli %g, %c304 : index
      %start = arith.select %masked, %slot, %at : index
      %start32 = arith.index_cast %start : index to i32
      %count32 = arith.index_cast %count : index to i32
      memref.store %start32, %hstarts[%g] : !rows
      memref.store %count32, %hcounts[%g] : !rows
      %after = arith.addi %at, %count : index
      %after32 = arith.index_cast %after : index to i32
      %bound = arith.select %masked, %count32, %after32 : i32
      memref.store %bound, %hbounds[%g] : !rows
      %slot_end = arith.addi %slot, %c304 : index
      %next = arith.select %masked, %slot_end, %after : index
      scf.yield %next : index
    }
    %capacity = arith.select %masked, %c304, %c0 : index
    %gn = arith.muli %groups, %n : index
    %mk = arith.muli %m, %k : index
    %gnk = arith.muli %gn, %k : index
    %ha = memref.alloc(%mk) : memref<?xi8>
    %hb = memref.alloc(%gnk) : memref<?xi8>
    %hc = memref.alloc(%m, %n) : memref<?x?x!ec>
    func.call @fill8(%ha, %m, %k, %c3, %c7) : (memref<?xi8>, index, index, index, index) -> ()
    func.call @fill8(%hb, %gn, %k, %c2, %c3) : (memref<?xi8>, index, index, index, index) -> ()
    %hsa = memref.alloc(%m) : !scales
    %hsb = memref.alloc(%gn) : !scales
    %base_a = arith.constant 0.5 : f32
    %base_b = arith.constant 0.75 : f32
    func.call @factors(%hsa, %base_a) : (!scales, f32) -> ()
    func.call @factors(%hsb, %base_b) : (!scales, f32) -> ()
    %nan = arith.constant 0x7FC00000 : f32
    %nan_c = arith.truncf %nan : f32 to !ec
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        memref.store %nan_c, %hc[%i, %j] : memref<?x?x!ec>
      }
    }
    %dab = gpu.alloc (%mk) : memref<?xi8>
    %dbb = gpu.alloc (%gnk) : memref<?xi8>
    %da = memref.view %dab[%c0][%m, %k] : memref<?xi8> to memref<?x?x!ea>
    %db = memref.view %dbb[%c0][%gn, %k] : memref<?xi8> to memref<?x?x!eb>
    %dc = gpu.alloc (%m, %n) : memref<?x?x!ec>
    %dbounds = gpu.alloc (%groups) : !rows
    %dsa = gpu.alloc (%m) : !scales
    %dsb = gpu.alloc (%gn) : !scales
    gpu.memcpy %dab, %ha : memref<?xi8>, memref<?xi8>
    gpu.memcpy %dbb, %hb : memref<?xi8>, memref<?xi8>
    gpu.memcpy %dc, %hc : memref<?x?x!ec>, memref<?x?x!ec>
    gpu.memcpy %dbounds, %hbounds : !rows, !rows
    gpu.memcpy %dsa, %hsa : !scales, !scales
    gpu.memcpy %dsb, %hsb : !scales, !scales
    %ta = tile.tma_create_descriptor %da : memref<?x?x!ea> -> !da8
    %tb = tile.tma_create_descriptor %db : memref<?x?x!eb> -> !db8
    %tc = tile.tma_create_descriptor %dc : memref<?x?x!ec> -> !dc8
    %c1024 = arith.constant 1024 : index
    %ws_rows = arith.muli %ctas, %c1024 : index
    %ws = gpu.alloc (%ws_rows) : !workspace
    %halves = arith.muli %ctas, %c4 : index
    %counters = gpu.alloc (%halves) : !counters
    %zero_count = arith.constant 0 : i32
    gpu.memset %counters, %zero_count : !counters, i32
    scf.if %narrow {
      // @grouped_gemm_fp8_nt_narrow: 128-row B tiles, the same shared
      // memory (a 6-stage ring of 32 KB stages and the staging buffers).
      %tbh = tile.tma_create_descriptor %db : memref<?x?x!eb> -> !db8h
      gpu.launch_func @kernels::@grouped_gemm_fp8_nt_narrow blocks in (%ctas, %c1, %c1)
          threads in (%c384, %c1, %c1) dynamic_shared_memory_size %smem
          args(%ta : !da8, %tbh : !db8h, %tc : !dc8, %dc : memref<?x?x!ec>, %dbounds : !rows,
               %capacity : index, %groups : index, %n : index, %k : index,
               %dsa : !scales, %dsb : !scales)
    } else {
      gpu.launch_func @kernels::@grouped_gemm_fp8_nt blocks in (%ctas, %c1, %c1) threads in (%c384, %c1, %c1)
          dynamic_shared_memory_size %smem
          args(%ta : !da8, %tb : !db8, %tc : !dc8, %dc : memref<?x?x!ec>, %dbounds : !rows,
               %capacity : index, %groups : index, %n : index, %k : index,
               %dsa : !scales, %dsb : !scales, %ws : !workspace, %counters : !counters)
    }
    gpu.memcpy %hc, %dc : memref<?x?x!ec>, memref<?x?x!ec>
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tol = arith.constant 1.0e-2 : f32
    %onef = arith.constant 1.0 : f32
    %c5 = arith.constant 5 : index
    %two = arith.constant 2.0 : f32
    %bad = scf.for %i = %c0 to %m step %c1 iter_args(%b0 = %none) -> (i32) {
      %i32 = arith.index_cast %i : index to i32
      %owner = scf.for %g = %c0 to %groups step %c1 iter_args(%o = %groups) -> (index) {
        %s = memref.load %hstarts[%g] : !rows
        %cnt = memref.load %hcounts[%g] : !rows
        %e = arith.addi %s, %cnt : i32
        %ge = arith.cmpi sge, %i32, %s : i32
        %lt = arith.cmpi slt, %i32, %e : i32
        %in = arith.andi %ge, %lt : i1
        %o2 = arith.select %in, %g, %o : index
        scf.yield %o2 : index
      }
      %grouped = arith.cmpi ult, %owner, %groups : index
      %row = scf.for %j = %c0 to %n step %c1 iter_args(%b = %b0) -> (i32) {
        %got = memref.load %hc[%i, %j] : memref<?x?x!ec>
        %gf = arith.extf %got : !ec to f32
        %off = scf.if %grouped -> (i1) {
          %gn0 = arith.muli %owner, %n : index
          %brow = arith.addi %gn0, %j : index
          // The values @fill8 encoded: ((p i + q j) mod 5) - 2.
          %dot = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
            %i3 = arith.muli %i, %c3 : index
            %l7 = arith.muli %l, %c7 : index
            %xa = arith.addi %i3, %l7 : index
            %xr = arith.remui %xa, %c5 : index
            %b2 = arith.muli %brow, %c2 : index
            %l3 = arith.muli %l, %c3 : index
            %yb = arith.addi %b2, %l3 : index
            %yr = arith.remui %yb, %c5 : index
            %xi = arith.index_cast %xr : index to i32
            %yi = arith.index_cast %yr : index to i32
            %xf0 = arith.sitofp %xi : i32 to f32
            %yf0 = arith.sitofp %yi : i32 to f32
            %xf = arith.subf %xf0, %two : f32
            %yf = arith.subf %yf0, %two : f32
            %p = math.fma %xf, %yf, %acc : f32
            scf.yield %p : f32
          }
          %fa = memref.load %hsa[%i] : !scales
          %fb = memref.load %hsb[%brow] : !scales
          %f = arith.mulf %fa, %fb : f32
          %ref = arith.mulf %dot, %f : f32
          %d = arith.subf %gf, %ref : f32
          %ad = math.absf %d : f32
          %ar = math.absf %ref : f32
          %scale = arith.maximumf %ar, %onef : f32
          %rel = arith.divf %ad, %scale : f32
          %ok = arith.cmpf ole, %rel, %tol : f32
          %wrong = arith.xori %ok, %true_ : i1
          scf.yield %wrong : i1
        } else {
          %untouched = arith.cmpf uno, %gf, %gf : f32
          %written = arith.xori %untouched, %true_ : i1
          scf.yield %written : i1
        }
        %inc = arith.select %off, %one, %none : i32
        %nb = arith.addi %b, %inc : i32
        scf.yield %nb : i32
      }
      scf.yield %row : i32
    }
    gpu.dealloc %dab : memref<?xi8>
    gpu.dealloc %dbb : memref<?xi8>
    gpu.dealloc %dc : memref<?x?x!ec>
    gpu.dealloc %dbounds : !rows
    gpu.dealloc %dsa : !scales
    gpu.dealloc %dsb : !scales
    gpu.dealloc %ws : !workspace
    gpu.dealloc %counters : !counters
    memref.dealloc %ha : memref<?xi8>
    memref.dealloc %hb : memref<?xi8>
    memref.dealloc %hc : memref<?x?x!ec>
    memref.dealloc %hsa : !scales
    memref.dealloc %hsb : !scales
    memref.dealloc %hstarts : !rows
    memref.dealloc %hcounts : !rows
    memref.dealloc %hbounds : !rows
    return %bad : i32
  }

  // Block scale (i, j): 1 + ((i + 2 j) mod 5) / 4 times `base` (varying
  // along the rows, the K blocks and, with 3 column blocks a group, from
  // group to group).
  func.func @block_factors(%h: memref<?x?xf32>, %base: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %quarter = arith.constant 0.25 : f32
    %one = arith.constant 1.0 : f32
    %rows = memref.dim %h, %c0 : memref<?x?xf32>
    %cols = memref.dim %h, %c1 : memref<?x?xf32>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %j2 = arith.addi %j, %j : index
        %s = arith.addi %i, %j2 : index
        %r = arith.remui %s, %c5 : index
        %ri = arith.index_cast %r : index to i32
        %rf = arith.sitofp %ri : i32 to f32
        %f = math.fma %rf, %quarter, %one : f32
        %v = arith.mulf %f, %base : f32
        memref.store %v, %h[%i, %j] : memref<?x?xf32>
      }
    }
    return
  }

  // Runs @grouped_gemm_fp8_nt_blockwise as @run_fp8 runs @grouped_gemm_fp8_nt,
  // with block scales, and returns the mismatches the same way.
  func.func @run_fp8_blockwise(%groups: index, %n: index, %k: index, %masked: i1,
                                %ctas: index) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c37 = arith.constant 37 : index
    %c256 = arith.constant 256 : index
    %c301 = arith.constant 301 : index
    %c304 = arith.constant 304 : index
    %c384 = arith.constant 384 : index
    %true_ = arith.constant true
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    // The 6-stage ring (96 KB of A, 96 KB of B tiles) and 2 x 2 staging
    // buffers of 8 KB.
    %smem = arith.constant 229376 : i32
    %hstarts = memref.alloc(%groups) : !rows
    %hcounts = memref.alloc(%groups) : !rows
    %hbounds = memref.alloc(%groups) : !rows
    %m = scf.for %g = %c0 to %groups step %c1 iter_args(%at = %c0) -> (index) {
      %g7 = arith.muli %g, %c7 : index
      %g73 = arith.addi %g7, %c3 : index
      %x = arith.muli %g73, %c37 : index
      %some = arith.remui %x, %c301 : index
      %is4 = arith.cmpi eq, %g, %c4 : index
      %is6 = arith.cmpi eq, %g, %c6 : index
      %some6 = arith.select %is6, %c256, %some : index
      %count = arith.select %is4, %c0, %some6 : index
      %slot = arith.muli %g, %c304 : index
      %start = arith.select %masked, %slot, %at : index
      %start32 = arith.index_cast %start : index to i32
      %count32 = arith.index_cast %count : index to i32
      memref.store %start32, %hstarts[%g] : !rows
      memref.store %count32, %hcounts[%g] : !rows
      %after = arith.addi %at, %count : index
      %after32 = arith.index_cast %after : index to i32
      %bound = arith.select %masked, %count32, %after32 : i32
      memref.store %bound, %hbounds[%g] : !rows
      %slot_end = arith.addi %slot, %c304 : index
      %next = arith.select %masked, %slot_end, %after : index
      scf.yield %next : index
    }
    %capacity = arith.select %masked, %c304, %c0 : index
    %gn = arith.muli %groups, %n : index
    %mk = arith.muli %m, %k : index
    %gnk = arith.muli %gn, %k : index
    %ha = memref.alloc(%mk) : memref<?xi8>
    %hb = memref.alloc(%gnk) : memref<?xi8>
    %hc = memref.alloc(%m, %n) : memref<?x?x!ec>
    func.call @fill8(%ha, %m, %k, %c3, %c7) : (memref<?xi8>, index, index, index, index) -> ()
    func.call @fill8(%hb, %gn, %k, %c2, %c3) : (memref<?xi8>, index, index, index, index) -> ()
    // Block scales: A's per (row, K block), B's per (128-row block of a
    // group's N, K block), groups after one another.
    %k127 = arith.addi %k, %c127 : index
    %kblocks = arith.divui %k127, %c128 : index
    %n127 = arith.addi %n, %c127 : index
    %nblocks = arith.divui %n127, %c128 : index
    %gnb = arith.muli %groups, %nblocks : index
    %hsa = memref.alloc(%m, %kblocks) : memref<?x?xf32>
    %hsb = memref.alloc(%gnb, %kblocks) : memref<?x?xf32>
    %base_a = arith.constant 0.5 : f32
    %base_b = arith.constant 0.75 : f32
    func.call @block_factors(%hsa, %base_a) : (memref<?x?xf32>, f32) -> ()
    func.call @block_factors(%hsb, %base_b) : (memref<?x?xf32>, f32) -> ()
    %nan = arith.constant 0x7FC00000 : f32
    %nan_c = arith.truncf %nan : f32 to !ec
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        memref.store %nan_c, %hc[%i, %j] : memref<?x?x!ec>
      }
    }
    %dab = gpu.alloc (%mk) : memref<?xi8>
    %dbb = gpu.alloc (%gnk) : memref<?xi8>
    %da = memref.view %dab[%c0][%m, %k] : memref<?xi8> to memref<?x?x!ea>
    %db = memref.view %dbb[%c0][%gn, %k] : memref<?xi8> to memref<?x?x!eb>
    %dc = gpu.alloc (%m, %n) : memref<?x?x!ec>
    %dbounds = gpu.alloc (%groups) : !rows
    %dsa = gpu.alloc (%m, %kblocks) : memref<?x?xf32>
    %dsb = gpu.alloc (%gnb, %kblocks) : memref<?x?xf32>
    gpu.memcpy %dab, %ha : memref<?xi8>, memref<?xi8>
    gpu.memcpy %dbb, %hb : memref<?xi8>, memref<?xi8>
    gpu.memcpy %dc, %hc : memref<?x?x!ec>, memref<?x?x!ec>
    gpu.memcpy %dbounds, %hbounds : !rows, !rows
    gpu.memcpy %dsa, %hsa : memref<?x?xf32>, memref<?x?xf32>
    gpu.memcpy %dsb, %hsb : memref<?x?xf32>, memref<?x?xf32>
    %sa = memref.cast %dsa : memref<?x?xf32> to !block_scales
    %sb = memref.cast %dsb : memref<?x?xf32> to !block_scales
    %ta = tile.tma_create_descriptor %da : memref<?x?x!ea> -> !da8
    %tb = tile.tma_create_descriptor %db : memref<?x?x!eb> -> !db8h
    %tc = tile.tma_create_descriptor %dc : memref<?x?x!ec> -> !dc8
    gpu.launch_func @kernels::@grouped_gemm_fp8_nt_blockwise blocks in (%ctas, %c1, %c1)
        threads in (%c384, %c1, %c1) dynamic_shared_memory_size %smem
        args(%ta : !da8, %tb : !db8h, %tc : !dc8, %dc : memref<?x?x!ec>, %dbounds : !rows,
             %capacity : index, %groups : index, %n : index, %k : index,
             %sa : !block_scales, %sb : !block_scales)
    gpu.memcpy %hc, %dc : memref<?x?x!ec>, memref<?x?x!ec>
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tol = arith.constant 1.0e-2 : f32
    %onef = arith.constant 1.0 : f32
    %c5 = arith.constant 5 : index
    %two = arith.constant 2.0 : f32
    %bad = scf.for %i = %c0 to %m step %c1 iter_args(%b0 = %none) -> (i32) {
      %i32 = arith.index_cast %i : index to i32
      %owner = scf.for %g = %c0 to %groups step %c1 iter_args(%o = %groups) -> (index) {
        %s = memref.load %hstarts[%g] : !rows
        %cnt = memref.load %hcounts[%g] : !rows
        %e = arith.addi %s, %cnt : i32
        %ge = arith.cmpi sge, %i32, %s : i32
        %lt = arith.cmpi slt, %i32, %e : i32
        %in = arith.andi %ge, %lt : i1
        %o2 = arith.select %in, %g, %o : index
        scf.yield %o2 : index
      }
      %grouped = arith.cmpi ult, %owner, %groups : index
      %row = scf.for %j = %c0 to %n step %c1 iter_args(%b = %b0) -> (i32) {
        %got = memref.load %hc[%i, %j] : memref<?x?x!ec>
        %gf = arith.extf %got : !ec to f32
        %off = scf.if %grouped -> (i1) {
          %gn0 = arith.muli %owner, %n : index
          %brow = arith.addi %gn0, %j : index
          // The values @fill8 encoded: ((p i + q j) mod 5) - 2.
          %jb = arith.divui %j, %c128 : index
          %gnb0 = arith.muli %owner, %nblocks : index
          %brow_block = arith.addi %gnb0, %jb : index
          // The values @fill8 encoded: ((p i + q j) mod 5) - 2, each
          // product with its K block's scales.
          %ref = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
            %i3 = arith.muli %i, %c3 : index
            %l7 = arith.muli %l, %c7 : index
            %xa = arith.addi %i3, %l7 : index
            %xr = arith.remui %xa, %c5 : index
            %b2 = arith.muli %brow, %c2 : index
            %l3 = arith.muli %l, %c3 : index
            %yb = arith.addi %b2, %l3 : index
            %yr = arith.remui %yb, %c5 : index
            %xi = arith.index_cast %xr : index to i32
            %yi = arith.index_cast %yr : index to i32
            %xf0 = arith.sitofp %xi : i32 to f32
            %yf0 = arith.sitofp %yi : i32 to f32
            %xf = arith.subf %xf0, %two : f32
            %yf = arith.subf %yf0, %two : f32
            %lb = arith.divui %l, %c128 : index
            %fa = memref.load %hsa[%i, %lb] : memref<?x?xf32>
            %fb = memref.load %hsb[%brow_block, %lb] : memref<?x?xf32>
            %f = arith.mulf %fa, %fb : f32
            %xy = arith.mulf %xf, %yf : f32
            %p = math.fma %xy, %f, %acc : f32
            scf.yield %p : f32
          }
          %d = arith.subf %gf, %ref : f32
          %ad = math.absf %d : f32
          %ar = math.absf %ref : f32
          %scale = arith.maximumf %ar, %onef : f32
          %rel = arith.divf %ad, %scale : f32
          %ok = arith.cmpf ole, %rel, %tol : f32
          %wrong = arith.xori %ok, %true_ : i1
          scf.yield %wrong : i1
        } else {
          %untouched = arith.cmpf uno, %gf, %gf : f32
          %written = arith.xori %untouched, %true_ : i1
          scf.yield %written : i1
        }
        %inc = arith.select %off, %one, %none : i32
        %nb = arith.addi %b, %inc : i32
        scf.yield %nb : i32
      }
      scf.yield %row : i32
    }
    gpu.dealloc %dab : memref<?xi8>
    gpu.dealloc %dbb : memref<?xi8>
    gpu.dealloc %dc : memref<?x?x!ec>
    gpu.dealloc %dbounds : !rows
    gpu.dealloc %dsa : memref<?x?xf32>
    gpu.dealloc %dsb : memref<?x?xf32>
    memref.dealloc %ha : memref<?xi8>
    memref.dealloc %hb : memref<?xi8>
    memref.dealloc %hc : memref<?x?x!ec>
    memref.dealloc %hsa : memref<?x?xf32>
    memref.dealloc %hsb : memref<?x?xf32>
    memref.dealloc %hstarts : !rows
    memref.dealloc %hcounts : !rows
    memref.dealloc %hbounds : !rows
    return %bad : i32
  }

  func.func @main() {
    %true = arith.constant true
    %false = arith.constant false
    %groups = arith.constant 9 : index
    %c132 = arith.constant 132 : index
    %c5 = arith.constant 5 : index
    %n = arith.constant 296 : index
    %k = arith.constant 200 : index
    %contiguous = func.call @run(%groups, %n, %k, %false, %c132) : (index, index, index, i1, index) -> i32
    vector.print str "grouped gemm contiguous 9 groups x296x200 mismatches: "
    vector.print %contiguous : i32
    %masked = func.call @run(%groups, %n, %k, %true, %c132) : (index, index, index, i1, index) -> i32
    vector.print str "grouped gemm masked 9 groups x296x200 mismatches: "
    vector.print %masked : i32
    // 3 groups (7 row tiles, one column tile) on 132 CTAs: every tile split
    // along K (8 ways over 1024 / 64 slices).
    %three = arith.constant 3 : index
    %sn = arith.constant 256 : index
    %sk = arith.constant 1024 : index
    %split = func.call @run(%three, %sn, %sk, %false, %c132) : (index, index, index, i1, index) -> i32
    vector.print str "grouped gemm split-K 3 groups x256x1024 mismatches: "
    vector.print %split : i32
    // The FP8 kernel (e4m3, row-wise scales, bf16 C), both layouts, K
    // not a multiple of the 128-element slice.
    %k8 = arith.constant 208 : index
    %fp8 = func.call @run_fp8(%groups, %n, %k8, %false, %c132, %false) : (index, index, index, i1, index, i1) -> i32
    vector.print str "grouped gemm fp8 contiguous 9 groups x296x208 mismatches: "
    vector.print %fp8 : i32
    %fp8_masked = func.call @run_fp8(%groups, %n, %k8, %true, %c132, %false) : (index, index, index, i1, index, i1) -> i32
    vector.print str "grouped gemm fp8 masked 9 groups x296x208 mismatches: "
    vector.print %fp8_masked : i32
    // 5 CTAs for the 24 tiles: each walks on from group to group.
    %few = func.call @run(%groups, %n, %k, %false, %c5) : (index, index, index, i1, index) -> i32
    vector.print str "grouped gemm contiguous 9 groups x296x200 on 5 CTAs mismatches: "
    vector.print %few : i32
    %few8 = func.call @run_fp8(%groups, %n, %k8, %true, %c5, %false) : (index, index, index, i1, index, i1) -> i32
    vector.print str "grouped gemm fp8 masked 9 groups x296x208 on 5 CTAs mismatches: "
    vector.print %few8 : i32
    // The FP8 kernel on 128x128 tiles, both layouts (the second on 5 CTAs).
    %narrow8 = func.call @run_fp8(%groups, %n, %k8, %false, %c132, %true) : (index, index, index, i1, index, i1) -> i32
    vector.print str "grouped gemm fp8 narrow contiguous 9 groups x296x208 mismatches: "
    vector.print %narrow8 : i32
    %narrow8_few = func.call @run_fp8(%groups, %n, %k8, %true, %c5, %true) : (index, index, index, i1, index, i1) -> i32
    vector.print str "grouped gemm fp8 narrow masked 9 groups x296x208 on 5 CTAs mismatches: "
    vector.print %narrow8_few : i32
    // Block scales (1 x 128 of A, 128 x 128 of each group's B): K = 208 (2
    // blocks, the last partial) and 464 (4), 640 (5: pairs and an odd
    // one) on 5 CTAs, 128 (1) masked on 5 CTAs; N = 296: the last
    // 128-column block partial.
    %bw = func.call @run_fp8_blockwise(%groups, %n, %k8, %false, %c132) : (index, index, index, i1, index) -> i32
    vector.print str "grouped gemm fp8 blockwise contiguous 9 groups x296x208 mismatches: "
    vector.print %bw : i32
    %k464 = arith.constant 464 : index
    %bw_masked = func.call @run_fp8_blockwise(%groups, %n, %k464, %true, %c132) : (index, index, index, i1, index) -> i32
    vector.print str "grouped gemm fp8 blockwise masked 9 groups x296x464 mismatches: "
    vector.print %bw_masked : i32
    %k640 = arith.constant 640 : index
    %bw_few = func.call @run_fp8_blockwise(%groups, %n, %k640, %false, %c5) : (index, index, index, i1, index) -> i32
    vector.print str "grouped gemm fp8 blockwise contiguous 9 groups x296x640 on 5 CTAs mismatches: "
    vector.print %bw_few : i32
    %k128 = arith.constant 128 : index
    %bw_one = func.call @run_fp8_blockwise(%groups, %n, %k128, %true, %c5) : (index, index, index, i1, index) -> i32
    vector.print str "grouped gemm fp8 blockwise masked 9 groups x296x128 on 5 CTAs mismatches: "
    vector.print %bw_one : i32
    return
  }
}
