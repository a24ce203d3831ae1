"""Bit sets of two words, for boards that a 64-bit word cannot hold (12x12: 77 bits).

A :data:`wide` set is one 128-bit integer in compiled code (LLVM's ``i128``: each operation
a few instructions on two registers), with the operators the bit-set kernels use on a word:
``& | ^ ~``, shifts by a ``uint64``, ``+`` and ``==``/``!=`` with an integer, and
:func:`damas_env.kernels.popcount` / ``lowest_bit``. Kernels written for words therefore
run on wide sets unchanged, as long as they take their constants from their sets (the empty
set of x's type is ``x ^ x``) and their masks through :func:`source_mask`.

Under ``NUMBA_DISABLE_JIT=1`` a wide set is a :class:`WideInt`, a Python int kept to 128
bits that takes numpy integers as operands, so the same kernels run as plain Python.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, models, overload, register_model

__all__ = ["WIDE_BITS", "WideInt", "WideType", "wide", "wide_from", "wide_parts"]

WIDE_BITS = 128
_MASK = (1 << WIDE_BITS) - 1
_I128 = ir.IntType(WIDE_BITS)


class WideInt(int):
    """A wide set in plain Python: an int of at most 128 bits; numpy integers as operands."""

    def __new__(cls, value: Any = 0) -> WideInt:
        return super().__new__(cls, int(value) & _MASK)

    def __and__(self, other: Any) -> WideInt:
        return WideInt(int(self) & int(other))

    def __or__(self, other: Any) -> WideInt:
        return WideInt(int(self) | int(other))

    def __xor__(self, other: Any) -> WideInt:
        return WideInt(int(self) ^ int(other))

    def __invert__(self) -> WideInt:
        return WideInt(~int(self))

    def __add__(self, other: Any) -> WideInt:
        return WideInt(int(self) + int(other))

    def __sub__(self, other: Any) -> WideInt:
        return WideInt(int(self) - int(other))

    def __lshift__(self, other: Any) -> WideInt:
        return WideInt(int(self) << int(other))

    def __rshift__(self, other: Any) -> WideInt:
        return WideInt(int(self) >> int(other))

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__


def wide_from(lo: Any, hi: Any) -> WideInt:
    """Returns the wide set whose low word is `lo` and high word `hi` (uint64s)."""
    return WideInt(int(lo) | int(hi) << 64)


def wide_parts(x: Any) -> tuple[np.uint64, np.uint64]:
    """Returns the (low, high) words of a wide set."""
    return np.uint64(int(x) & 0xFFFF_FFFF_FFFF_FFFF), np.uint64(int(x) >> 64)


# --- The compiled type ---------------------------------------------------------------------


class WideType(types.Type):
    """numba's type of a wide set."""

    def __init__(self) -> None:
        super().__init__(name="wide128")


#: The type of a wide set in compiled kernels.
wide = WideType()


@register_model(WideType)
class _WideModel(models.PrimitiveModel):
    def __init__(self, dmm: Any, fe_type: Any) -> None:
        super().__init__(dmm, fe_type, _I128)


def _widened(builder: Any, value: Any) -> Any:
    """An integer operand as i128 (zero-extended: operands are unsigned bit sets)."""
    return value if value.type == _I128 else builder.zext(value, _I128)


@intrinsic
def _from(typingctx: Any, lo: Any, hi: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        lo, hi = (_widened(builder, a) for a in args)
        return builder.or_(lo, builder.shl(hi, ir.Constant(_I128, 64)))

    return wide(types.uint64, types.uint64), codegen


@intrinsic
def _parts(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        i64 = ir.IntType(64)
        lo = builder.trunc(args[0], i64)
        hi = builder.trunc(builder.lshr(args[0], ir.Constant(_I128, 64)), i64)
        return context.make_tuple(builder, signature.return_type, (lo, hi))

    return types.UniTuple(types.uint64, 2)(wide), codegen


def _binary_intrinsic(name: str) -> Any:
    """An intrinsic (wide, wide or unsigned integer) -> wide applying builder.`name`."""

    @intrinsic
    def op(typingctx: Any, a: Any, b: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return getattr(builder, name)(args[0], _widened(builder, args[1]))

        return wide(a, b), codegen

    return op


_and, _or, _xor = _binary_intrinsic("and_"), _binary_intrinsic("or_"), _binary_intrinsic("xor")
_add, _sub = _binary_intrinsic("add"), _binary_intrinsic("sub")
_shl, _lshr = _binary_intrinsic("shl"), _binary_intrinsic("lshr")


@intrinsic
def _not(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.not_(args[0])

    return wide(wide), codegen


def _compare_intrinsic(op: str) -> Any:
    @intrinsic
    def compare(typingctx: Any, a: Any, b: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.icmp_unsigned(op, args[0], _widened(builder, args[1]))

        return types.boolean(a, b), codegen

    return compare


_eq, _ne = _compare_intrinsic("=="), _compare_intrinsic("!=")


@intrinsic
def wide_popcount(typingctx: Any, x: Any) -> Any:
    """The number of set bits of a wide set (compiled only)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.trunc(builder.ctpop(args[0]), ir.IntType(64))

    return types.int64(wide), codegen


@intrinsic
def wide_lowest_bit(typingctx: Any, x: Any) -> Any:
    """The index of the lowest set bit of a non-empty wide set (compiled only)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        low = builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return builder.trunc(low, ir.IntType(64))

    return types.int64(wide), codegen


@overload(wide_from)
def _wide_from_compiled(lo, hi):  # type: ignore[no-untyped-def]  # numba matches names
    return lambda lo, hi: _from(np.uint64(lo), np.uint64(hi))


@overload(wide_parts)
def _wide_parts_compiled(x):  # type: ignore[no-untyped-def]
    if isinstance(x, WideType):
        return lambda x: _parts(x)
    return None


def _is_operand(t: Any) -> bool:
    return isinstance(t, (WideType, types.Integer))


def _overload_binary(python_op: Any, op: Any, shift: bool = False) -> None:
    """Registers op for python_op on a wide left operand (and on a wide right one unless
    `shift`: the operation does not commute)."""

    def typer(a, b):  # type: ignore[no-untyped-def]
        if isinstance(a, WideType) and _is_operand(b):
            return lambda a, b: op(a, b)
        if not shift and isinstance(b, WideType) and isinstance(a, types.Integer):
            return lambda a, b: op(b, a)
        return None

    overload(python_op)(typer)


_COMMUTING = {operator.and_: _and, operator.or_: _or, operator.xor: _xor, operator.add: _add}
_COMMUTING |= {operator.iand: _and, operator.ior: _or, operator.ixor: _xor, operator.iadd: _add}
_COMMUTING |= {operator.eq: _eq, operator.ne: _ne}
_ORDERED = {operator.lshift: _shl, operator.rshift: _lshr, operator.sub: _sub}
_ORDERED |= {operator.ilshift: _shl, operator.irshift: _lshr, operator.isub: _sub}
for _py, _op in _COMMUTING.items():
    _overload_binary(_py, _op)
for _py, _op in _ORDERED.items():
    _overload_binary(_py, _op, shift=True)


@overload(operator.invert)
def _invert_compiled(x):  # type: ignore[no-untyped-def]
    if isinstance(x, WideType):
        return lambda x: _not(x)
    return None
