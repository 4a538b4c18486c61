"""Tuning: a strategy's parameters searched on duplicate deals (tranca-sim tune) and its report."""
