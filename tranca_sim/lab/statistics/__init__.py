"""Designs and inference: how runs pair into units, intervals, confidence sequences, sequential tests, multiple comparisons, manipulation checks, run summaries."""
