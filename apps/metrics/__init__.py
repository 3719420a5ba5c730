"""Metric storage: per-minute raw arrays per instance-day, rollups, retention."""
