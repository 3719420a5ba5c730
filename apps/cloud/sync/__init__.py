"""Sync of one cloud account's data from Tencent Cloud: the runner and cloud's own kinds.

The runner (``runner.py``) claims, runs and records one kind of sync; which function runs a
kind is looked up in ``registry.py``, filled by the app that owns the kind's data: cloud its
inventory and prices (here), metrics the Cloud Monitor ingest (apps/metrics/ingest.py),
billing the bills and the balance (apps/billing/sync.py, apps/billing/months.py).

Each sync function writes idempotently and atomically per unit of work and returns a small
summary. Scheduling, leases and retries are the runner's and the tasks' business, not theirs.
"""
