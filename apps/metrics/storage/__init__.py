"""Low-level storage of raw metric days: the minute grid, the codec and the SQL of each backend.

Services and selectors are the public API; nothing outside ``apps.metrics`` imports from here.
"""
