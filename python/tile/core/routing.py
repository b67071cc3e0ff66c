"""When an entry point's call goes through PyTorch's operators (tile.library
defines them): under torch.compile's tracing, or where autograd records it.
Every other call takes the entry point's own launch path."""
from .errors import MatmulError

#: Registers the operators with PyTorch (tile.library's register, set when
#: it is imported); whether they are.
registrar = None
registered = False


def routed(torch, a, b=None, c=None, d=None) -> bool:
    """Whether a call on tensors a..d (None: absent) goes through the
    operators: under torch.compile's tracing (Dynamo), or where autograd
    records it. An entry point's every call asks: a few attribute reads,
    no tuple of arguments."""
    if torch.compiler.is_dynamo_compiling():
        return True
    return torch.is_grad_enabled() and (
        getattr(a, "requires_grad", False) or getattr(b, "requires_grad", False)
        or getattr(c, "requires_grad", False) or getattr(d, "requires_grad", False))


def recorded(torch, *tensors) -> bool:
    """Whether autograd records a call on `tensors` (grad mode on and one of
    them requires grad)."""
    if not torch.is_grad_enabled():
        return False
    for tensor in tensors:
        if getattr(tensor, "requires_grad", False):
            return True
    return False


def operators(torch, what: str, stream=None):
    """torch.ops.tile (registered first where it is not yet) for a routed
    call of `what`, which must leave `stream` to PyTorch."""
    if stream is not None:
        raise MatmulError(f"{what}: stream= does not apply under torch.compile or autograd "
                          "(the operators run on PyTorch's current stream)")
    if not registered:
        registrar(torch)
    return torch.ops.tile


def no_backward(torch, what: str, *tensors) -> None:
    """MatmulError where autograd would record `what`, which has no
    derivative."""
    if recorded(torch, *tensors):
        raise MatmulError(f"{what} has no backward yet: call it under torch.no_grad() or "
                          "torch.inference_mode(), or detach its inputs")
