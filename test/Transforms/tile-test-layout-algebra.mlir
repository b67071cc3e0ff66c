// The layout algebra on worked examples with CuTe's results, through
// #tile.layout attributes; inadmissible inputs are errors that name the
// condition.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-test-layout-algebra

// expected-remark @below {{complement = #tile.layout<(2,2):(1,12)>}}
func.func private @complement() attributes {
    tile.test.op = "complement", tile.test.args = [#tile.layout<(2,3):(2,4)>],
    tile.test.cotarget = 24}

// -----

// TV2Memory = MN2Memory o TV2MN.
// expected-remark @below {{compose = #tile.layout<((2,2),2,2):((8,1),4,2)>}}
func.func private @tv2memory() attributes {
    tile.test.op = "compose",
    tile.test.args = [#tile.layout<(4,4):(4,1)>, #tile.layout<(4,2,2):(2,1,8)>]}

// -----

// expected-remark @below {{coalesce = #tile.layout<6:1>}}
func.func private @coalesce() attributes {
    tile.test.op = "coalesce", tile.test.args = [#tile.layout<(2,3):(1,2)>]}

// -----

// expected-remark @below {{right_inverse = #tile.layout<(3,2):(2,1)>}}
func.func private @right_inverse() attributes {
    tile.test.op = "right_inverse", tile.test.args = [#tile.layout<(2,3):(3,1)>]}

// -----

// expected-remark @below {{zipped_divide = #tile.layout<((4,3),(2,2)):((1,8),(4,24))>}}
func.func private @zipped_divide() attributes {
    tile.test.op = "zipped_divide",
    tile.test.args = [#tile.layout<(8,6)>, #tile.layout<4:1>, #tile.layout<3:1>]}

// -----

// expected-remark @below {{raked_product = #tile.layout<((2,32),(8,4)):((1024,4),(128,1))>}}
func.func private @raked_product() attributes {
    tile.test.op = "raked_product",
    tile.test.args = [#tile.layout<(32,4):(4,1)>, #tile.layout<(2,8):(8,1)>]}

// -----

// expected-remark @below {{blocked_product = #tile.layout<((4,2),(3,2)):((4,16),(1,32))>}}
func.func private @blocked_product() attributes {
    tile.test.op = "blocked_product",
    tile.test.args = [#tile.layout<(4,3):(4,1)>, #tile.layout<(2,2)>]}

// -----

// logical_divide((5,4):(1,30), 4:1) is not admissible.
// expected-error @below {{logical_divide: stride 4 of the right operand neither divides nor is divided by extent 5 of (5,4):(1,30) (composition is not admissible)}}
func.func private @divide_not_admissible() attributes {
    tile.test.op = "logical_divide",
    tile.test.args = [#tile.layout<(5,4):(1,30)>, #tile.layout<4:1>]}

// -----

// logical_product((4,5):(30,1), (2,4)) is not admissible.
// expected-error @below {{logical_product: extent 4 of the right operand is not a multiple of 3}}
func.func private @product_not_admissible() attributes {
    tile.test.op = "logical_product",
    tile.test.args = [#tile.layout<(4,5):(30,1)>, #tile.layout<(2,4)>]}
