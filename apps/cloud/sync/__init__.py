"""Sync of one cloud account's data from Tencent Cloud, one module per kind.

Each ``sync_*`` function takes the account and a client, writes idempotently and atomically
per unit of work, and returns a small summary. Scheduling, leases and retries are the tasks'
business (apps/cloud/tasks.py), not theirs.
"""
