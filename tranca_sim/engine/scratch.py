"""Scratch memory for code that runs inside the kernels without numba's reference counting.

Strategies run in kernels compiled with ``_nrt=False`` (docs/strategies.md): they
may not allocate numpy arrays.  A strategy that needs work arrays (the search
player, :mod:`tranca_sim.strategies.pimc_search`) takes one block from the C library's
``malloc`` with :func:`sys_malloc`, views typed arrays into it with :func:`view`
and gives it back with :func:`sys_free` before it returns.  The intrinsics name
``malloc`` and ``free`` by symbol (no address is baked into the code), so the
kernels that use them stay in numba's disk cache.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def sys_malloc(typingctx, nbytes):
    """``void*`` to ``nbytes`` bytes from the C library's ``malloc`` (uninitialised)."""
    sig = types.voidptr(types.intp)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(cgutils.voidptr_t, [cgutils.intp_t])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "malloc")
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def sys_free(typingctx, ptr):
    """Give a block from :func:`sys_malloc` back to the C library."""
    sig = types.void(types.voidptr)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "free")
        builder.call(fn, [args[0]])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def view(typingctx, ptr, offset, shape, dtype):
    """A C-contiguous array of ``dtype`` and ``shape`` (a tuple of ints) at byte ``offset`` of
    the block ``ptr``; it owns nothing (no meminfo), so it must not outlive the block."""
    nd = len(shape)
    dt = dtype.dtype
    arrty = types.Array(dt, nd, "C")
    sig = arrty(ptr, offset, shape, dtype)

    def codegen(context, builder, signature, args):
        p, off, shp, _ = args
        ary = make_array(arrty)(context, builder)
        itemsize = context.get_abi_sizeof(context.get_data_type(dt))
        dims = [
            context.cast(builder, d, signature.args[2][i], types.intp)
            for i, d in enumerate(cgutils.unpack_tuple(builder, shp, nd))
        ]
        strides = []
        acc = context.get_constant(types.intp, itemsize)
        for d in reversed(dims):
            strides.append(acc)
            acc = builder.mul(acc, d)
        strides.reverse()
        off = context.cast(builder, off, signature.args[1], types.intp)
        raw = builder.gep(builder.bitcast(p, cgutils.int8_t.as_pointer()), [off])
        data = builder.bitcast(raw, context.get_data_type(dt).as_pointer())
        populate_array(
            ary,
            data=data,
            shape=cgutils.pack_array(builder, dims),
            strides=cgutils.pack_array(builder, strides),
            itemsize=context.get_constant(types.intp, itemsize),
            meminfo=None,
        )
        return ary._getvalue()

    return sig, codegen
