"""Counter-based per-deal random streams (numba).

Deal ``i`` of a run with master seed ``s`` gets streams keyed by
``(s, i, stream)``: stream 0 shuffles the pack, stream ``1 + seat`` drives
that seat's strategy.  Each key is hashed with splitmix64 into the 256-bit
state of a xoshiro256** generator, so a deal's cards and choices depend only
on the key, never on thread count, batch size or the other seats' strategies.
numba's global ``np.random`` is never used.

References: Steele, Lea & Flood (2014) for splitmix64; Blackman & Vigna
(2018) for xoshiro256**.
"""

from __future__ import annotations

import numpy as np
from numba import uint64

from .jit import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)

STREAM_SHUFFLE = 0
STREAM_SEAT0 = 1  # strategy stream of seat s is STREAM_SEAT0 + s


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> uint64(30))) * M1
    z = (z ^ (z >> uint64(27))) * M2
    return z ^ (z >> uint64(31))


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(cache=True, _nrt=False)
def seed_stream(state, master_seed, deal_index, stream):
    """Fill ``state`` (``uint64[4]``) for key ``(master_seed, deal_index, stream)``."""
    z = _mix(uint64(master_seed) + GOLDEN)
    z = _mix(z ^ (uint64(deal_index) * GOLDEN + uint64(0x632BE59BD9B4E019)))
    z = _mix(z ^ (uint64(stream) * M1 + uint64(0x2545F4914F6CDD1D)))
    for i in range(4):
        z = z + GOLDEN
        state[i] = _mix(z)


@njit(cache=True, inline="always")
def next_u64(s):
    """Next 64 random bits of xoshiro256** state ``s`` (``uint64[4]``, updated)."""
    result = _rotl(s[1] * uint64(5), 7) * uint64(9)
    t = s[1] << uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True, inline="always")
def randbelow(s, n):
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` (Lemire's multiply-shift, unbiased)."""
    nn = uint64(n)
    while True:
        x = next_u64(s) >> uint64(32)
        m = x * nn
        low = m & uint64(0xFFFFFFFF)
        if low >= nn or low >= ((uint64(0x100000000) - nn) % nn):
            return np.int64(m >> uint64(32))


@njit(cache=True, inline="always")
def uniform(s):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(s) >> uint64(11)) * (1.0 / 9007199254740992.0)
