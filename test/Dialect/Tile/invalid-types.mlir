// RUN: tile-opt %s -split-input-file -verify-diagnostics

// T-MBAR-1: at least one barrier.
// expected-error @below {{mbarrier count must be in [1, 29056] so that 8-byte barriers fit in 232448 bytes of shared memory, got 0 (T-MBAR-1)}}
func.func private @mbarrier_zero(!tile.mbarrier<count = 0>)

// -----

// T-MBAR-1: the barriers fit in shared memory.
// expected-error @below {{got 40000 (T-MBAR-1)}}
func.func private @mbarrier_too_many(!tile.mbarrier<count = 40000>)

// -----

// expected-error @below {{mbarrier count must be in [1, 29056], got -1 (T-MBAR-1)}}
func.func private @mbarrier_negative(!tile.mbarrier<count = -1>)

// -----

// expected-error @below {{expected scope cta or cluster, got 'grid'}}
func.func private @mbarrier_scope(!tile.mbarrier<scope = grid>)

// -----

// expected-error @below {{unknown mbarrier parameter 'phase', expected 'count' or 'scope'}}
func.func private @mbarrier_key(!tile.mbarrier<phase = 1>)

// -----

// T-SWZ-1: the XOR source and target bits are disjoint.
// expected-error @below {{swizzle<3, 4, 2> needs B >= 0, M >= 0 and |S| >= B (T-SWZ-1)}}
func.func private @swizzle_overlap() attributes {s = #tile.swizzle<3, 4, 2>}

// -----

// expected-error @below {{swizzle<-1, 4, 3> needs B >= 0, M >= 0 and |S| >= B (T-SWZ-1)}}
func.func private @swizzle_negative() attributes {s = #tile.swizzle<-1, 4, 3>}

// -----

// T-SWZ-2: all bits lie inside a 32-bit offset.
// expected-error @below {{swizzle<8, 16, 8> touches bit 31, beyond a 32-bit shared-memory offset (T-SWZ-2)}}
func.func private @swizzle_wide() attributes {s = #tile.swizzle<8, 16, 8>}

// -----

// expected-error @below {{expected a swizzle mode (none, b32, b64, b128) or 'B, M, S', got 'b256'}}
func.func private @swizzle_mode() attributes {s = #tile.swizzle<b256>}

// -----

// T-TMA-1: rank 1..5.
// expected-error @below {{tensor rank 6 is not in [1, 5] (T-TMA-1)}}
func.func private @tma_rank(!tile.tma_desc<memref<2x2x2x2x2x16xf16>, box = [2, 2, 2, 2, 2, 16]>)

// -----

// T-TMA-1: rank 3..5 with interleave.
// expected-error @below {{tensor rank 2 is not in [3, 5] with interleave (T-TMA-1)}}
func.func private @tma_interleave_rank(!tile.tma_desc<memref<64x64xf16>, box = [64, 64], interleave = b16>)

// -----

// T-TMA-2: one box extent per dimension.
// expected-error @below {{box rank 1 does not match tensor rank 2 (T-TMA-2)}}
func.func private @tma_box_rank(!tile.tma_desc<memref<64x64xf16>, box = [64]>)

// -----

// T-TMA-3: box extents 1..256.
// expected-error @below {{box dimension 0 is 300, not in [1, 256] (T-TMA-3)}}
func.func private @tma_box_big(!tile.tma_desc<memref<1024x64xf16>, box = [300, 64]>)

// -----

// T-TMA-3: box extents 1..256.
// expected-error @below {{box dimension 0 is 0, not in [1, 256] (T-TMA-3)}}
func.func private @tma_box_zero(!tile.tma_desc<memref<1024x64xf16>, box = [0, 64]>)

// -----

// T-TMA-4: a CUtensorMapDataType.
// expected-error @below {{element type 'i1' is not a TMA data type (i8/i16/i32/i64, f16, bf16, f8E4M3FN/f8E5M2, f32, f64) (T-TMA-4)}}
func.func private @tma_element(!tile.tma_desc<memref<64x128xi1>, box = [64, 128]>)

// -----

// T-TMA-5: the inner box is a whole number of 16-byte units.
// expected-error @below {{the inner box dimension spans 12 bytes, not a multiple of 16 (T-TMA-5)}}
func.func private @tma_inner_bytes(!tile.tma_desc<memref<128x6xf16>, box = [128, 6]>)

// -----

// T-TMA-6: a swizzled inner box fits the swizzle span.
// expected-error @below {{the inner box dimension spans 128 bytes, more than the 64-byte span of swizzle 64B (T-TMA-6)}}
func.func private @tma_swizzle_span(!tile.tma_desc<memref<128x64xf16>, box = [128, 64], swizzle = b64>)

// -----

// T-TMA-7: only the four TMA swizzles.
// expected-error @below {{swizzle #tile.swizzle<3, 3, 3> is not a TMA swizzle mode (none, b32, b64, b128) (T-TMA-7)}}
func.func private @tma_swizzle_mode(!tile.tma_desc<memref<128x64xf16>, box = [128, 64], swizzle = #tile.swizzle<3, 3, 3>>)

// -----

// T-TMA-8: NaN fill needs floats.
// expected-error @below {{oob fill NaN needs a floating-point element type, got i32 (T-TMA-8)}}
func.func private @tma_oob_nan(!tile.tma_desc<memref<128x64xi32>, box = [128, 64], oob = nan>)

// -----

// T-TMA-8: 8-bit floats move as u8, which has no NaN fill.
// expected-error @below {{oob fill NaN needs a floating-point element type, got f8E4M3FN (T-TMA-8)}}
func.func private @tma_oob_nan_fp8(!tile.tma_desc<memref<128x128xf8E4M3FN>, box = [128, 128], oob = nan>)

// -----

// T-TMA-9: global strides are multiples of 16 bytes.
// expected-error @below {{the stride of dimension 0 is 200 bytes; it must be a multiple of 16 and less than 2^40 (T-TMA-9)}}
func.func private @tma_stride(!tile.tma_desc<memref<64x100xf16>, box = [64, 64]>)

// -----

// T-TMA-9: the innermost dimension is contiguous.
// expected-error @below {{the innermost stride is 2 elements; TMA needs 1 (T-TMA-9)}}
func.func private @tma_inner_stride(!tile.tma_desc<memref<64x64xf16, strided<[128, 2]>>, box = [64, 64]>)

// -----

// T-TMA-9: static sizes are at least 1.
// expected-error @below {{tensor dimension 0 is 0, not in [1, 2^32] (T-TMA-9)}}
func.func private @tma_empty(!tile.tma_desc<memref<0x64xf16>, box = [64, 64]>)

// -----

// expected-error @below {{unknown tma_desc parameter 'multicast', expected swizzle, l2promo, oob, interleave, im2col_lower or im2col_upper}}
func.func private @tma_key(!tile.tma_desc<memref<64x64xf16>, box = [64, 64], multicast = b2>)

// -----

// expected-error @below {{unknown swizzle 'b256', expected none, b32, b64, b128 or a #tile.swizzle}}
func.func private @tma_swizzle_keyword(!tile.tma_desc<memref<64x64xf16>, box = [64, 64], swizzle = b256>)

// -----

// expected-error @below {{expected l2promo none, b64, b128 or b256, got 'b512'}}
func.func private @tma_l2promo(!tile.tma_desc<memref<64x64xf16>, box = [64, 64], l2promo = b512>)

// -----

// expected-error @below {{expected oob zero or nan, got 'inf'}}
func.func private @tma_oob(!tile.tma_desc<memref<64x64xf16>, box = [64, 64], oob = inf>)

// -----

// expected-error @below {{expected interleave none, b16 or b32, got 'b64'}}
func.func private @tma_interleave(!tile.tma_desc<memref<8x64x64xf16>, box = [8, 64, 64], interleave = b64>)

// -----

// T-TMA-1: im2col needs an NHWC-like tensor of rank 3..5.
// expected-error @below {{tensor rank 2 is not in [3, 5] in im2col mode (T-TMA-1)}}
func.func private @im2col_rank(!tile.tma_desc<memref<64x64xf16>, box = [64, 64], im2col_lower = [], im2col_upper = [0]>)

// -----

// expected-error @below {{im2col corners need 2 entries (one per spatial dimension of the rank-4 tensor), got 1 and 2 (T-TMA-21)}}
func.func private @im2col_corners(!tile.tma_desc<memref<1x8x8x64xf16>, box = [64, 64], im2col_lower = [-1], im2col_upper = [-1, -1]>)

// -----

// expected-error @below {{an im2col box is [pixels, channels], got 4 extents (T-TMA-21)}}
func.func private @im2col_box(!tile.tma_desc<memref<1x8x8x64xf16>, box = [1, 8, 8, 64], im2col_lower = [-1, -1], im2col_upper = [-1, -1]>)

// -----

// expected-error @below {{im2col corner -200 is outside [-128, 127] for a rank-4 tensor (T-TMA-12)}}
func.func private @im2col_corner_range(!tile.tma_desc<memref<1x8x8x64xf16>, box = [64, 64], im2col_lower = [-200, -1], im2col_upper = [-1, -1]>)

// -----

// expected-error @below {{im2col box [2048, 64] needs 1..1024 pixels and 1..256 channels (T-TMA-13)}}
func.func private @im2col_pixels(!tile.tma_desc<memref<1x64x64x64xf16>, box = [2048, 64], im2col_lower = [-1, -1], im2col_upper = [-1, -1]>)

// -----

// !tile.tma_desc: a swizzle given as an attribute must be a #tile.swizzle.
// swizzle = takes a TMA mode keyword or a #tile.swizzle attribute.
// expected-error @+1 {{expected a #tile.swizzle, got #tile.layout<4:1>}}
func.func private @tma_swizzle_attr(!tile.tma_desc<memref<128x64xf16>, box = [128, 64], swizzle = #tile.layout<4:1>>)
