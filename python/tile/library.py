"""tile's entry points as PyTorch operators (torch.library): fake
implementations for torch.compile and derivatives for autograd.
`tile.core.routing` decides when an entry point's call goes through them
(under Dynamo's tracing, or where autograd records it); what each operator
differentiates, and how, is python/README.md's "torch.compile and
autograd". The operators:

    tile::matmul(a, b, ...) -> C            f16/bf16 (and FP8 forward)
    tile::matmul_amax(a, b, ..., amax) -> (C, amax raised)
    tile::attention(q, k, v, ...) -> O      forward only (inference)
    tile::attention_fp8(q, k, v, ..., q_descale, k_descale, v_descale) -> O
                                            e4m3 in, bf16 out, forward only
    tile::attention_lse(q, k, v, ...) -> (O, nlse)
                                            with autograd: nlse is each query
                                            row's negated log2 sum-exp
    tile::attention_backward(dO, q, k, v, O, nlse, ...) -> (dq, dk, dv)
    tile::attention_varlen(q, k, v, cu_q, cu_k, max_q, ...) -> O
    tile::attention_varlen_lse(q, k, v, cu_q, cu_k, max_q, max_k, ...) -> (O, nlse)
                                            packed sequences, with autograd
    tile::attention_varlen_backward(dO, q, k, v, O, nlse, cu_q, cu_k, ...) -> (dq, dk, dv)
    tile::grouped_matmul(a, b, ...) -> C    f16/bf16 with autograd (and FP8 forward)
    tile::grouped_matmul_weight_grad(a, dC, offsets, valid) -> dB
    tile::rms_norm(x, w, residual, ...) -> (y, scales, h)
    tile::rms_norm_backward(dy, h, w, dh, eps) -> (dx, dw)
    tile::gated_activation(z, activation) -> act(gate) * up, with autograd
    tile::gated_activation_backward(z, dy, activation) -> dz
    tile::rope(x, cos, sin) -> rotated x    functional, with autograd
    tile::rope_(q, k, cos, sin)             in place, for compiled inference

They are functional but for tile::rope_ (PyTorch can reorder, fuse and
differentiate them); what an entry point writes in place (`out=`, an
in-place residual, an FP8 C's amax, tile.rope's q and k) is a copy of their
result there. A derivative an operator does not have (an activation, a gate
or FP8 arguments of tile::matmul called directly; an FP8 RMSNorm) is an
error when autograd records the call, never a silent wrong gradient.

They register when tile is imported after torch (2.4 or later), else at the
first routed call (before compiling a model that imports tile first, call
`tile.library.register()`).
"""
from typing import Optional, Tuple

from .core import routing
from .core.errors import MatmulError
from .ops import attention as attention_op
from .ops import attention_backward as attention_backward_op
from .ops import gated_activation as gated_activation_op
from .ops import grouped as grouped_op
from .ops import matmul as matmul_op
from .ops import rms_norm as rms_norm_op
from .ops import rms_norm_backward as rms_norm_backward_op
from .ops import rope as rope_op

# --- The operators ------------------------------------------------------------

def _row_major(x):
    """x with unit column stride and rows of at least its width (a
    gradient may be an expanded or transposed view)."""
    if x.stride(-1) == 1 and x.stride(0) >= x.shape[-1]:
        return x
    return x.contiguous()


def register(torch=None) -> None:
    """Registers tile's operators with PyTorch (once; torch 2.4 or later)."""
    if routing.registered:
        return
    if torch is None:
        import torch
    if not hasattr(torch.library, "custom_op"):
        raise MatmulError(f"tile's PyTorch operators (torch.compile, autograd) need torch 2.4 "
                          f"or later (torch.library.custom_op), got {torch.__version__}")
    _register_matmul(torch)
    _register_others(torch)
    routing.registered = True


routing.registrar = register


def _matmul_shape(torch, a, b, transpose_b: bool, gated: bool, scale_a, out_dtype):
    """(shape, dtype) of tile.matmul's C."""
    n = b.shape[0] if transpose_b else b.shape[1]
    if gated:
        n //= 2
    if out_dtype is None:
        out_dtype = torch.bfloat16 if scale_a is not None else a.dtype
    return (a.shape[0], n), out_dtype


def _register_matmul(torch) -> None:
    Tensor = torch.Tensor

    @torch.library.custom_op("tile::matmul", mutates_args=())
    def tile_matmul(a: Tensor, b: Tensor, transpose_b: bool, bias: Optional[Tensor],
                    residual: Optional[Tensor], activation: Optional[str], gated: bool,
                    scale_a: Optional[Tensor], scale_b: Optional[Tensor],
                    out_dtype: Optional[torch.dtype], out_scale: Optional[Tensor],
                    saturate: bool, stage: bool, tune: bool) -> Tensor:
        with torch.no_grad():  # the entry point's own launch, not routed again
            return matmul_op.matmul(a, b, transpose_b=transpose_b, stage=stage, tune=tune,
                                    scale_a=scale_a, scale_b=scale_b, out_dtype=out_dtype,
                                    bias=bias, residual=residual, activation=activation,
                                    gated=gated, out_scale=out_scale, saturate=saturate)

    @tile_matmul.register_fake
    def _(a, b, transpose_b, bias, residual, activation, gated, scale_a, scale_b, out_dtype,
          out_scale, saturate, stage, tune):
        shape, dtype = _matmul_shape(torch, a, b, transpose_b, gated, scale_a, out_dtype)
        return a.new_empty(shape, dtype=dtype)

    def setup_context(ctx, inputs, output):
        a, b, transpose_b, bias, residual, activation, gated, scale_a, scale_b, out_dtype = \
            inputs[:10]
        if activation not in (None, "identity") or gated or scale_a is not None \
                or scale_b is not None or (out_dtype is not None and out_dtype != a.dtype):
            raise MatmulError("tile::matmul differentiates C = A B (+ bias, + residual) of "
                              "f16/bf16 operands; under autograd tile.matmul runs an "
                              "activation or gate as a second step (tile::gated_activation, "
                              "or PyTorch's activation), FP8 has no backward yet")
        ctx.transpose_b = transpose_b
        ctx.bias_shape = None if bias is None else tuple(bias.shape)
        ctx.row_bias = bias is not None and bias.dim() == 2 and bias.shape == (a.shape[0], 1)
        ctx.save_for_backward(a, b)

    def backward(ctx, grad):
        # C = A B' (+ bias, + residual), B' = b^T with transpose_b: dA = dC B'^T
        # and dB' = A^T dC, by tile's products.
        a, b = ctx.saved_tensors
        grad = _row_major(grad)
        needs = ctx.needs_input_grad
        ops = torch.ops.tile
        grad_a = grad_b = grad_bias = grad_residual = None

        def product(x, y, transpose):
            return ops.matmul(x, y, transpose, None, None, None, False, None, None, None,
                              None, True, True, False)
        if needs[0]:
            grad_a = product(grad, b, not ctx.transpose_b)
        if needs[1]:
            # A^T and dC^T as the transposed views they are: M-major A.
            grad_b = (product(grad.t(), a, False) if ctx.transpose_b
                      else product(a.t(), grad, False))
        if needs[3]:
            summed = grad.sum(1, keepdim=True) if ctx.row_bias else grad.sum(0)
            grad_bias = summed.reshape(ctx.bias_shape)
        if needs[4]:
            grad_residual = grad
        return (grad_a, grad_b, None, grad_bias, grad_residual) + (None,) * 9

    tile_matmul.register_autograd(backward, setup_context=setup_context)

    @torch.library.custom_op("tile::matmul_amax", mutates_args=())
    def tile_matmul_amax(a: Tensor, b: Tensor, transpose_b: bool, bias: Optional[Tensor],
                         residual: Optional[Tensor], activation: Optional[str], gated: bool,
                         out_dtype: Optional[torch.dtype], out_scale: Optional[Tensor],
                         amax: Tensor, saturate: bool, stage: bool) -> Tuple[Tensor, Tensor]:
        raised = amax.clone()
        with torch.no_grad():
            c = matmul_op.matmul(a, b, transpose_b=transpose_b, stage=stage,
                                 out_dtype=out_dtype, bias=bias, residual=residual,
                                 activation=activation, gated=gated, out_scale=out_scale,
                                 amax=raised, saturate=saturate)
        return c, raised

    @tile_matmul_amax.register_fake
    def _(a, b, transpose_b, bias, residual, activation, gated, out_dtype, out_scale, amax,
          saturate, stage):
        shape, dtype = _matmul_shape(torch, a, b, transpose_b, gated, None, out_dtype)
        return a.new_empty(shape, dtype=dtype), torch.empty_like(amax)


def _register_others(torch) -> None:
    Tensor = torch.Tensor

    def causal_kind(causal: str):
        """The ops' causal argument from the operators' string (\"none\": False)."""
        return None if causal == "none" else causal

    @torch.library.custom_op("tile::attention", mutates_args=())
    def tile_attention(q: Tensor, k: Tensor, v: Tensor, causal: str, scale: Optional[float],
                       enable_gqa: bool, window_left: int, window_right: int,
                       softcap: float) -> Tensor:
        with torch.no_grad():
            return attention_op.attention(
                q, k, v, causal_kind(causal) or False, scale, enable_gqa=enable_gqa,
                window_size=(window_left, window_right), softcap=softcap)

    @tile_attention.register_fake
    def _(q, k, v, causal, scale, enable_gqa, window_left, window_right, softcap):
        return q.new_empty(tuple(q.shape[:-1]) + (v.shape[-1],))

    @torch.library.custom_op("tile::attention_fp8", mutates_args=())
    def tile_attention_fp8(q: Tensor, k: Tensor, v: Tensor, causal: str, scale: Optional[float],
                           enable_gqa: bool, window_left: int, window_right: int,
                           softcap: float, q_descale: Optional[Tensor],
                           k_descale: Optional[Tensor], v_descale: Optional[Tensor]) -> Tensor:
        with torch.no_grad():
            return attention_op.attention_fp8(
                q, k, v, causal_kind(causal) or False, scale, enable_gqa=enable_gqa,
                window_size=(window_left, window_right), softcap=softcap, q_descale=q_descale,
                k_descale=k_descale, v_descale=v_descale)

    @tile_attention_fp8.register_fake
    def _(q, k, v, causal, scale, enable_gqa, window_left, window_right, softcap, q_descale,
          k_descale, v_descale):
        return q.new_empty(tuple(q.shape[:-1]) + (v.shape[-1],), dtype=torch.bfloat16)

    @torch.library.custom_op("tile::attention_lse", mutates_args=())
    def tile_attention_lse(q: Tensor, k: Tensor, v: Tensor, causal: str, scale: Optional[float],
                           enable_gqa: bool) -> Tuple[Tensor, Tensor]:
        with torch.no_grad():
            return attention_backward_op.forward(torch, q, k, v, causal_kind(causal), scale,
                                                 enable_gqa)

    @tile_attention_lse.register_fake
    def _(q, k, v, causal, scale, enable_gqa):
        batch, heads, sq = q.shape[:3]
        return (q.new_empty((batch, heads, sq, v.shape[-1])),
                q.new_empty((batch * heads * sq,), dtype=torch.float32))

    def attention_setup(ctx, inputs, output):
        q, k, v, causal, scale, _ = inputs
        ctx.causal, ctx.scale = causal, scale
        ctx.mark_non_differentiable(output[1])
        ctx.save_for_backward(q, k, v, *output)

    def attention_backward(ctx, grad_out, grad_nlse):
        q, k, v, out, nlse = ctx.saved_tensors
        dq, dk, dv = torch.ops.tile.attention_backward(grad_out, q, k, v, out, nlse, ctx.causal,
                                                       ctx.scale)
        return dq, dk, dv, None, None, None

    tile_attention_lse.register_autograd(attention_backward, setup_context=attention_setup)

    @torch.library.custom_op("tile::attention_backward", mutates_args=())
    def tile_attention_backward(grad_out: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor,
                                nlse: Tensor, causal: str,
                                scale: Optional[float]) -> Tuple[Tensor, Tensor, Tensor]:
        with torch.no_grad():
            return attention_backward_op.backward(torch, grad_out, q, k, v, out, nlse,
                                                  causal_kind(causal), scale)

    @tile_attention_backward.register_fake
    def _(grad_out, q, k, v, out, nlse, causal, scale):
        return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)

    @torch.library.custom_op("tile::attention_varlen", mutates_args=())
    def tile_attention_varlen(q: Tensor, k: Tensor, v: Tensor, cu_q: Tensor, cu_k: Tensor,
                              max_q: int, causal: str, scale: Optional[float],
                              enable_gqa: bool, window_left: int, window_right: int,
                              softcap: float) -> Tensor:
        with torch.no_grad():
            return attention_op.attention_varlen(
                q, k, v, cu_q, cu_k, max_q, None, causal_kind(causal) or False, scale,
                enable_gqa=enable_gqa, window_size=(window_left, window_right),
                softcap=softcap)

    @tile_attention_varlen.register_fake
    def _(q, k, v, cu_q, cu_k, max_q, causal, scale, enable_gqa, window_left, window_right,
          softcap):
        return q.new_empty(tuple(q.shape[:-1]) + (v.shape[-1],))

    @torch.library.custom_op("tile::attention_varlen_lse", mutates_args=())
    def tile_attention_varlen_lse(q: Tensor, k: Tensor, v: Tensor, cu_q: Tensor, cu_k: Tensor,
                                  max_q: int, max_k: Optional[int], causal: str,
                                  scale: Optional[float],
                                  enable_gqa: bool) -> Tuple[Tensor, Tensor]:
        with torch.no_grad():
            return attention_backward_op.forward_varlen(torch, q, k, v, cu_q, cu_k, max_q,
                                                        causal_kind(causal), scale, enable_gqa)

    @tile_attention_varlen_lse.register_fake
    def _(q, k, v, cu_q, cu_k, max_q, max_k, causal, scale, enable_gqa):
        return (q.new_empty(tuple(q.shape[:-1]) + (v.shape[-1],)),
                q.new_empty((q.shape[1], q.shape[0]), dtype=torch.float32))

    def attention_varlen_setup(ctx, inputs, output):
        q, k, v, cu_q, cu_k, max_q, max_k, causal, scale, _ = inputs
        ctx.limits, ctx.causal, ctx.scale = (max_q, max_k), causal, scale
        ctx.mark_non_differentiable(output[1])
        ctx.save_for_backward(q, k, v, cu_q, cu_k, *output)

    def attention_varlen_backward(ctx, grad_out, grad_nlse):
        q, k, v, cu_q, cu_k, out, nlse = ctx.saved_tensors
        dq, dk, dv = torch.ops.tile.attention_varlen_backward(
            grad_out, q, k, v, out, nlse, cu_q, cu_k, *ctx.limits, ctx.causal, ctx.scale)
        return (dq, dk, dv) + (None,) * 7

    tile_attention_varlen_lse.register_autograd(attention_varlen_backward,
                                                setup_context=attention_varlen_setup)

    @torch.library.custom_op("tile::attention_varlen_backward", mutates_args=())
    def tile_attention_varlen_backward(grad_out: Tensor, q: Tensor, k: Tensor, v: Tensor,
                                       out: Tensor, nlse: Tensor, cu_q: Tensor, cu_k: Tensor,
                                       max_q: int, max_k: Optional[int], causal: str,
                                       scale: Optional[float]
                                       ) -> Tuple[Tensor, Tensor, Tensor]:
        with torch.no_grad():
            return attention_backward_op.backward_varlen(
                torch, grad_out, q, k, v, out, nlse, cu_q, cu_k, max_q, max_k,
                causal_kind(causal), scale)

    @tile_attention_varlen_backward.register_fake
    def _(grad_out, q, k, v, out, nlse, cu_q, cu_k, max_q, max_k, causal, scale):
        return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)

    @torch.library.custom_op("tile::grouped_matmul", mutates_args=())
    def tile_grouped_matmul(a: Tensor, b: Tensor, offsets: Optional[Tensor],
                            valid: Optional[Tensor], scale_a: Optional[Tensor],
                            scale_b: Optional[Tensor],
                            out_dtype: Optional[torch.dtype]) -> Tensor:
        with torch.no_grad():
            return grouped_op.grouped_matmul(a, b, offsets, valid=valid, scale_a=scale_a,
                                             scale_b=scale_b, out_dtype=out_dtype)

    @tile_grouped_matmul.register_fake
    def _(a, b, offsets, valid, scale_a, scale_b, out_dtype):
        if out_dtype is None:
            out_dtype = torch.bfloat16 if scale_a is not None else a.dtype
        return a.new_empty(tuple(a.shape[:-1]) + (b.shape[-1],), dtype=out_dtype)

    @torch.library.custom_op("tile::grouped_matmul_weight_grad", mutates_args=())
    def tile_grouped_matmul_weight_grad(a: Tensor, grad: Tensor, offsets: Optional[Tensor],
                                        valid: Optional[Tensor]) -> Tensor:
        with torch.no_grad():
            return grouped_op.weight_grad(torch, a, grad, offsets, valid)

    @tile_grouped_matmul_weight_grad.register_fake
    def _(a, grad, offsets, valid):
        groups = (offsets if valid is None else valid).shape[0]
        return a.new_empty((groups, a.shape[-1], grad.shape[-1]))

    def grouped_setup(ctx, inputs, output):
        a, b, offsets, valid, scale_a, scale_b = inputs[:6]
        if scale_a is not None or scale_b is not None:
            raise MatmulError("tile::grouped_matmul differentiates f16/bf16 products; FP8 "
                              "operands have no backward yet")
        ctx.save_for_backward(a, b, offsets, valid)

    def grouped_backward(ctx, grad):
        # C_g = A_g B[g] on each group's rows. dA_g = dC_g B[g]^T: the grouped
        # kernel again, its B the transposed view of b made contiguous, zero
        # on the rows no group holds; dB[g] = A_g^T dC_g by group.
        a, b, offsets, valid = ctx.saved_tensors
        grad = grad.contiguous()
        needs = ctx.needs_input_grad
        grad_a = grad_b = None
        if needs[0]:
            product = torch.ops.tile.grouped_matmul(
                grad, b.contiguous().transpose(-2, -1), offsets, valid, None, None, None)
            grad_a = torch.where(grouped_op.held_rows(torch, a, offsets, valid), product, 0)
        if needs[1]:
            grad_b = torch.ops.tile.grouped_matmul_weight_grad(a, grad, offsets, valid)
        return grad_a, grad_b, None, None, None, None, None

    tile_grouped_matmul.register_autograd(grouped_backward, setup_context=grouped_setup)

    @torch.library.custom_op("tile::rms_norm", mutates_args=())
    def tile_rms_norm(x: Tensor, weight: Tensor, residual: Optional[Tensor], eps: float,
                      out_dtype: Optional[torch.dtype]) -> Tuple[Tensor, Tensor, Tensor]:
        with torch.no_grad():
            results = rms_norm_op.rms_norm(x, weight, eps, residual, out_dtype=out_dtype)
        results = results if isinstance(results, tuple) else (results,)
        y = results[0]
        scales = results[1] if out_dtype is not None else x.new_empty(0, dtype=torch.float32)
        h = results[-1] if residual is not None else x.new_empty(0)
        return y, scales, h

    @tile_rms_norm.register_fake
    def _(x, weight, residual, eps, out_dtype):
        y = x.new_empty(x.shape, dtype=out_dtype or x.dtype)
        scales = (x.new_empty(tuple(x.shape[:-1]) + (1,), dtype=torch.float32)
                  if out_dtype is not None else x.new_empty(0, dtype=torch.float32))
        return y, scales, x.new_empty(x.shape) if residual is not None else x.new_empty(0)

    def rms_norm_setup(ctx, inputs, output):
        x, weight, residual, eps, out_dtype = inputs
        if out_dtype is not None:
            raise MatmulError("tile::rms_norm with an FP8 y has no backward yet")
        ctx.eps = eps
        ctx.residual = residual is not None
        ctx.save_for_backward(output[2] if residual is not None else x, weight)

    def rms_norm_backward(ctx, grad_y, grad_scales, grad_h):
        h, weight = ctx.saved_tensors
        add_h = ctx.residual and grad_h is not None and grad_h.numel() > 0
        grad, grad_weight = torch.ops.tile.rms_norm_backward(
            grad_y, h, weight, grad_h if add_h else None, ctx.eps)
        needs = ctx.needs_input_grad
        return (grad if needs[0] else None, grad_weight if needs[1] else None,
                grad if ctx.residual and needs[2] else None, None, None)

    tile_rms_norm.register_autograd(rms_norm_backward, setup_context=rms_norm_setup)

    @torch.library.custom_op("tile::gated_activation", mutates_args=())
    def tile_gated_activation(z: Tensor, activation: str) -> Tensor:
        return gated_activation_op.gated_activation(torch, z, activation)

    @tile_gated_activation.register_fake
    def _(z, activation):
        return z.new_empty((z.shape[0], z.shape[1] // 2))

    def gated_activation_setup(ctx, inputs, output):
        ctx.activation = inputs[1]
        ctx.save_for_backward(inputs[0])

    def gated_activation_derivative(ctx, grad):
        z, = ctx.saved_tensors
        return torch.ops.tile.gated_activation_backward(z, grad, ctx.activation), None

    tile_gated_activation.register_autograd(gated_activation_derivative,
                                            setup_context=gated_activation_setup)

    @torch.library.custom_op("tile::gated_activation_backward", mutates_args=())
    def tile_gated_activation_backward(z: Tensor, grad: Tensor, activation: str) -> Tensor:
        return gated_activation_op.gated_activation_backward(torch, z, grad, activation)

    @tile_gated_activation_backward.register_fake
    def _(z, grad, activation):
        return torch.empty_like(z, memory_format=torch.contiguous_format)

    @torch.library.custom_op("tile::rms_norm_backward", mutates_args=())
    def tile_rms_norm_backward(grad_y: Tensor, h: Tensor, weight: Tensor,
                               grad_h: Optional[Tensor], eps: float) -> Tuple[Tensor, Tensor]:
        return rms_norm_backward_op.rms_norm_backward(torch, grad_y, h, weight, eps, grad_h)

    @tile_rms_norm_backward.register_fake
    def _(grad_y, h, weight, grad_h, eps):
        return torch.empty_like(h, memory_format=torch.contiguous_format), \
            torch.empty_like(weight)

    @torch.library.custom_op("tile::rope", mutates_args=())
    def tile_rope(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
        rotated = x.clone()
        with torch.no_grad():
            rope_op.rope(rotated, None, cos, sin)
        return rotated

    @tile_rope.register_fake
    def _(x, cos, sin):
        return torch.empty_like(x)

    def rope_setup(ctx, inputs, output):
        _, cos, sin = inputs
        if cos.requires_grad or sin.requires_grad:
            raise MatmulError("tile.rope differentiates q and k, not the cos and sin tables: "
                              "detach them")
        # dx = dy cos + R^T (dy sin) with R = rotate_half, R^T (y1, y2) =
        # (y2, -y1): RoPE of dy with the sin halves swapped and negated.
        half = sin.shape[-1] // 2
        ctx.save_for_backward(cos, -torch.cat((sin[..., half:], sin[..., :half]), dim=-1))

    def rope_backward(ctx, grad):
        cos, back_sin = ctx.saved_tensors
        return torch.ops.tile.rope(grad.contiguous(), cos, back_sin), None, None

    tile_rope.register_autograd(rope_backward, setup_context=rope_setup)

    @torch.library.custom_op("tile::rope_", mutates_args=("q", "k"))
    def tile_rope_(q: Tensor, k: Optional[Tensor], cos: Tensor, sin: Tensor) -> None:
        with torch.no_grad():
            rope_op.rope(q, k, cos, sin)

    @tile_rope_.register_fake
    def _(q, k, cos, sin):
        return None
