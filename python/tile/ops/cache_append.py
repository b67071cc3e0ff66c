"""Appending new keys and values to a KV cache in place: one generated tile
kernel for K and V together (tile.attention_with_kvcache's `k=`, `v=`).

Row (b, t, h) of the new keys (B, n, Hkv, D) goes to position
p = seqlens[b] + t of sequence b (or length + t for one length): slot
(b, p) of a contiguous cache (B, S_max, Hkv, D), or (block_table[b, p / page],
p mod page) of a paged one (num_blocks, page, Hkv, D). A position outside
[0, capacity) or a block index outside the cache writes nothing. A thread
moves 16 bytes of a row of K and of V (D / 8 threads a row, 256 a CTA).
Offsets are 64-bit: a cache can hold more than 2^31 elements.

    python3 -m tile cache-append --head-dim 128
"""
from dataclasses import dataclass

from ..family import KernelFamily
from ..core.operands import cdiv
from .decode_attention import HEAD_DIMS

#: Threads of a CTA.
THREADS = 256
#: Elements a thread moves per row and tensor (16 bytes).
VECTOR = 8


@dataclass(frozen=True)
class CacheAppendConfig:
    """The append kernel of one element type ("f16"/"bf16") and head dim."""
    element: str = "bf16"
    head_dim: int = 128

    def validate(self) -> None:
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"cache append element must be f16 or bf16, got {self.element}")
        if self.head_dim not in HEAD_DIMS:
            raise ValueError(f"cache append head dim must be 64 or 128, got {self.head_dim}")


def cache_append_source(config: CacheAppendConfig) -> str:
    """The module holding @cache_append for `config`."""
    config.validate()
    e, vectors = config.element, config.head_dim // VECTOR
    return f"""// cache_append: new K/V rows written into a KV cache (tile.ops.cache_append).
!rows = memref<?x?x?x?x{e}, strided<[?, ?, ?, 1], offset: ?>>
module attributes {{gpu.container_module}} {{
  gpu.module @kernels {{
    // Thread (row, vector): row = (b n + t) Hkv + h of the new rows,
    // elements 8 vector .. + 8 of its head dim.
    gpu.func @cache_append(%k_new: !rows, %v_new: !rows, %k_cache: !rows, %v_cache: !rows,
        %table: memref<?x?xi32>, %seqlens: memref<?xi32>, %appended: index,
        %length: index, %per_sequence: i1, %page: index, %paged: i1) kernel
        attributes {{known_block_size = array<i32: {THREADS}, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c_vector = arith.constant {VECTOR} : index
      %c_vectors = arith.constant {vectors} : index
      %c_threads = arith.constant {THREADS} : index
      %true = arith.constant true
      // Launched as a programmatic dependent (T-PDL-1, T-PDL-2).
      tile.grid_dependency_wait
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %first = arith.muli %bid, %c_threads : index
      %gid = arith.addi %first, %tid : index
      %row = arith.divui %gid, %c_vectors : index
      %vec = arith.remui %gid, %c_vectors : index
      %batch = memref.dim %k_new, %c0 : !rows
      %kv_heads = memref.dim %k_new, %c2 : !rows
      %bn = arith.muli %batch, %appended : index
      %rows = arith.muli %bn, %kv_heads : index
      %live = arith.cmpi ult, %row, %rows : index
      scf.if %live {{
        %h = arith.remui %row, %kv_heads : index
        %bt = arith.divui %row, %kv_heads : index
        %t = arith.remui %bt, %appended : index
        %b = arith.divui %bt, %appended : index
        %start = scf.if %per_sequence -> (index) {{
          %start_i32 = memref.load %seqlens[%b] : memref<?xi32>
          %start_b = arith.index_cast %start_i32 : i32 to index
          scf.yield %start_b : index
        }} else {{
          scf.yield %length : index
        }}
        %pos = arith.addi %start, %t : index
        %table_pages = memref.dim %table, %c1 : memref<?x?xi32>
        %paged_capacity = arith.muli %table_pages, %page : index
        %capacity = arith.select %paged, %paged_capacity, %page : index
        %nonneg = arith.cmpi sge, %pos, %c0 : index
        %below = arith.cmpi slt, %pos, %capacity : index
        %in_cache = arith.andi %nonneg, %below : i1
        scf.if %in_cache {{
          %blocks = memref.dim %k_cache, %c0 : !rows
          %slot:3 = scf.if %paged -> (index, index, i1) {{
            %pi = arith.divui %pos, %page : index
            %block_i32 = memref.load %table[%b, %pi] : memref<?x?xi32>
            %block = arith.index_cast %block_i32 : i32 to index
            %block_nonneg = arith.cmpi sge, %block, %c0 : index
            %block_below = arith.cmpi slt, %block, %blocks : index
            %block_in = arith.andi %block_nonneg, %block_below : i1
            %in_page = arith.remui %pos, %page : index
            scf.yield %block, %in_page, %block_in : index, index, i1
          }} else {{
            scf.yield %b, %pos, %true : index, index, i1
          }}
          scf.if %slot#2 {{
            %col = arith.muli %vec, %c_vector : index
            %k_row = vector.load %k_new[%b, %t, %h, %col] {{alignment = 16}} : !rows, vector<{VECTOR}x{e}>
            vector.store %k_row, %k_cache[%slot#0, %slot#1, %h, %col] {{alignment = 16}} : !rows, vector<{VECTOR}x{e}>
            %v_row = vector.load %v_new[%b, %t, %h, %col] {{alignment = 16}} : !rows, vector<{VECTOR}x{e}>
            vector.store %v_row, %v_cache[%slot#0, %slot#1, %h, %col] {{alignment = 16}} : !rows, vector<{VECTOR}x{e}>
          }}
        }}
      }}
      gpu.return
    }}
  }}
}}
"""


#: The append kernels, keyed by CacheAppendConfig (64-bit offsets).
CACHE_APPEND = KernelFamily("cache_append", cache_append_source)


def append_grid(batch: int, appended: int, kv_heads: int, head_dim: int) -> tuple:
    """CTAs for the new rows' vectors."""
    return (max(1, cdiv(batch * appended * kv_heads * (head_dim // VECTOR), THREADS)), 1, 1)
