"""The strength ladder: a round robin rated on one scale, and a tip's value by the strength of its player."""
