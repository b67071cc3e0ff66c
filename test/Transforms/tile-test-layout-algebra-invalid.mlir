// Errors of -tile-test-layout-algebra on malformed requests (arity, missing
// cotarget, unknown operation, non-layout arguments) and an inadmissible
// composition whose right operand has a negative stride.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-test-layout-algebra

// Unary operations take exactly one layout.
// expected-error @+1 {{coalesce: coalesce takes 1 layout(s), got 2}}
func.func private @coalesce_two() attributes {
    tile.test.op = "coalesce", tile.test.args = [#tile.layout<4:1>, #tile.layout<2:1>]}

// -----

// The divides take a layout and at least one tiler.
// expected-error @+1 {{zipped_divide: zipped_divide takes a layout and a tiler}}
func.func private @divide_no_tiler() attributes {
    tile.test.op = "zipped_divide", tile.test.args = [#tile.layout<(8,6)>]}

// -----

// complement(L, M) needs its cotarget M.
// expected-error @+1 {{complement: complement needs tile.test.cotarget}}
func.func private @complement_no_cotarget() attributes {
    tile.test.op = "complement", tile.test.args = [#tile.layout<(2,3):(2,4)>]}

// -----

// expected-error @+1 {{transpose: unknown layout operation 'transpose'}}
func.func private @unknown_op() attributes {
    tile.test.op = "transpose", tile.test.args = [#tile.layout<4:1>, #tile.layout<2:1>]}

// -----

// expected-error @+1 {{tile.test.args must hold #tile.layout attributes}}
func.func private @not_a_layout() attributes {
    tile.test.op = "coalesce", tile.test.args = [4 : i64]}

// -----

// A o B is admissible only for modes of B with positive extents and
// non-negative strides.
// expected-error @+1 {{compose: mode 4:-1 of the right operand has no positive extent or a negative stride (composition is not admissible)}}
func.func private @compose_negative_stride() attributes {
    tile.test.op = "compose", tile.test.args = [#tile.layout<8:1>, #tile.layout<4:-1>]}
