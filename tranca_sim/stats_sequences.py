"""Confidence sequences: intervals for a mean that hold at every sample size at once, so that
data may be looked at (and a run stopped) as often as one likes.

Pure formulas, below everything that uses them (the position analyser and the lab).  The
asymptotic Gaussian-mixture confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas
(2021), 'Time-uniform central limit theory and asymptotic confidence sequences', with the
two-sided normal-mixture boundary of Howard, Ramdas, McAuliffe & Sekhon (2021).
"""

from __future__ import annotations

import math

import numpy as np


def cs_rho2(t_opt: float, alpha: float = 0.05) -> float:
    """Mixture variance ``rho**2`` that makes the confidence sequence tightest near ``t_opt`` units.

    ``rho**2 = (2 log(1/alpha) + log(1 + 2 log(1/alpha))) / t_opt`` (the closed-form
    approximation of Howard et al. 2021 used by Waudby-Smith et al. 2021). Fix it
    before seeing data (it may depend on the design, never on the outcomes).
    """
    if not t_opt > 0 or not 0 < alpha < 1:
        raise ValueError(f"need t_opt > 0 and 0 < alpha < 1, got {t_opt!r}, {alpha!r}")
    la = math.log(1 / alpha)
    return (2 * la + math.log(1 + 2 * la)) / t_opt


def cs_half_width(sd, n, rho2: float, alpha: float = 0.05):
    """Half-width of the (1 - alpha) asymptotic confidence sequence after ``n`` units.

    ``sd * sqrt(2 (n rho2 + 1) / (n**2 rho2) * log(sqrt(n rho2 + 1) / alpha))``:
    the interval ``mean +- half-width`` covers the true mean at every ``n`` at
    once with probability tending to ``1 - alpha`` (Waudby-Smith et al. 2021,
    the Gaussian-mixture AsympCS; ``sd`` is the running sample standard
    deviation). Works on scalars or arrays; ``inf`` where ``n < 2``.
    """
    n = np.asarray(n, dtype=np.float64)
    sd = np.asarray(sd, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = n * rho2 + 1
        w = sd * np.sqrt(2 * v / (n * n * rho2) * np.log(np.sqrt(v) / alpha))
    w = np.where(n >= 2, w, np.inf)
    return float(w) if w.ndim == 0 else w
