"""What the on-instance agent (agent/) sends: per-GPU samples and cumulative work counters.

Stored beside the Cloud Monitor metric days, one row per point: the agent's points are keyed
by their own timestamps (a resent batch must change nothing), come every 10-60 s rather than
on the minute grid, and carry per-GPU facts (throttle reasons, processes) the instance-minute
arrays have no room for.
"""
