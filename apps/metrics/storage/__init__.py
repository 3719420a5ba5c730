"""Low-level storage of metrics: the codec, the SQL of raw days and the rollup upsert.

Services and selectors are the public API; nothing outside ``apps.metrics`` imports from here.
"""
