"""Turning noisy per-block phase costs into phases that do not flap.

Two steps. A Viterbi pass finds, per instance, the sequence of states with the lowest total cost
where every change of state costs a fixed penalty; it is vectorised across instances, so the only
Python loop over time runs over blocks, not minutes or instances, and the trace back runs once per
phase change, not per block. Then any run still shorter than the minimum phase length is merged
into its longer neighbour, which makes "no phase shorter than the minimum" a guarantee rather than
a tendency.

Both steps hand paths around run-length encoded, as flat ``starts`` (instance x blocks + block of
each run's first block; every instance's first block is a start) and ``values`` (the run's state).
"""

from __future__ import annotations

import numpy as np

# Costs drift by a bounded amount per step; re-centring every so often keeps float32 precise.
_RENORMALISE_EVERY = 256
# Blocks per slab when preparing the trace back (4 states x 1,000 instances x 256 blocks x 2 B).
_SLAB_BLOCKS = 256


def viterbi_uniform_switch(costs: np.ndarray, switch_penalty: float) -> tuple[np.ndarray, ...]:
    """Cheapest state path per instance under a uniform switching penalty.

    ``costs`` has shape (blocks, states, instances), time-major so that each step reads one
    contiguous slab; lower is better, in penalty units (non-negative). Returns the run-length
    encoded path ``(starts, values)`` (see the module docstring). Ties prefer staying, then the
    lowest state index; the path is a pure function of the costs, so re-running gives identical
    output.
    """
    blocks, states, instances = costs.shape
    history = np.empty((blocks, states, instances), dtype=np.float32)
    # threshold[t] = min over states of history[t] + penalty: the best path into a state at t+1
    # came from the same state if that state's cost at t is at most this, else from the best
    # state at t.
    threshold = np.empty((blocks, instances), dtype=np.float32)
    history[0] = costs[0]
    penalty = np.float32(switch_penalty)
    folded = np.empty((max(1, states // 2), instances), dtype=np.float32)
    four = states == 4
    for step in range(1, blocks):
        previous = history[step - 1]
        best = threshold[step - 1]
        if four:  # the default, inlined: this loop runs once per block
            np.minimum(previous[:2], previous[2:], out=folded)
            np.minimum(folded[0], folded[1], out=best)
        else:
            _min_over_states(previous, folded, out=best)
        best += penalty
        current = history[step]
        np.minimum(previous, best, out=current)
        current += costs[step]
        if step % _RENORMALISE_EVERY == 0:
            current -= current.min(axis=0)
    return _trace_back(history, threshold)


def _trace_back(history: np.ndarray, threshold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Follow the best path back from the last block, one jump per change of state.

    Going back from state ``s`` at block ``t`` the path stays in ``s`` down to the latest block
    ``t' < t`` at which ``s`` was too expensive to be kept (its cost above the threshold), and
    there switches to the cheapest state at ``t'``. The latest such block at or before ``t`` is
    a running maximum over blocks, computed for all blocks at once; the trace back then
    needs one vectorised step per phase change of the busiest instance instead of one per block.
    """
    blocks, states, instances = history.shape
    index_type = np.int16 if blocks < np.iinfo(np.int16).max else np.int32
    # after[t, s] = 1 + the latest block at or before t where s was dropped, 0 if none. Built in
    # slabs that stay in the cache: flags times block numbers, then a running maximum over time
    # (a loop of whole-slab maximums; ``np.maximum.accumulate`` along axis 0 walks memory
    # column by column and is several times slower).
    after = np.empty((max(blocks - 1, 0), states, instances), dtype=index_type)
    for first in range(0, blocks - 1, _SLAB_BLOCKS):
        last = min(first + _SLAB_BLOCKS, blocks - 1)
        dropped = np.greater(history[first:last], threshold[first:last, np.newaxis, :])
        number = np.arange(first + 1, last + 1, dtype=index_type)[:, np.newaxis, np.newaxis]
        np.multiply(dropped, number, out=after[first:last])
    for step in range(1, blocks - 1):
        np.maximum(after[step - 1], after[step], out=after[step])

    instance = np.arange(instances)
    state = np.argmin(history[-1], axis=0)
    end = np.full(instances, blocks - 1)
    found_instance, found_start, found_state = [], [], []
    while instance.size:
        switch = np.full(instance.size, -1, dtype=np.int64)
        inside = end > 0
        switch[inside] = after[end[inside] - 1, state[inside], instance[inside]]
        switch[inside] -= 1
        found_instance.append(instance)
        found_start.append(switch + 1)
        found_state.append(state)
        more = switch >= 0
        instance, end = instance[more], switch[more]
        state = np.argmin(history[end, :, instance], axis=1)
    # Runs were found last-first per instance; put each instance's runs in time order.
    runs_instance = np.concatenate(found_instance)
    round_found = np.repeat(np.arange(len(found_instance)), [a.size for a in found_instance])
    per_instance = np.bincount(runs_instance, minlength=instances)
    first_run = np.cumsum(per_instance) - per_instance
    position = first_run[runs_instance] + per_instance[runs_instance] - 1 - round_found
    starts = np.empty(runs_instance.size, dtype=np.int64)
    values = np.empty(runs_instance.size, dtype=np.uint8)
    starts[position] = runs_instance * blocks + np.concatenate(found_start)
    values[position] = np.concatenate(found_state)
    return starts, values


def _min_over_states(values: np.ndarray, folded: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Min over the first axis of a (states, instances) slab, by folding halves.

    Folding with ``np.minimum`` is about twice as fast as ``np.min(axis=0)`` on these small slabs,
    and this runs once per time step.
    """
    rows = values.shape[0]
    if rows & (rows - 1):
        return np.min(values, axis=0, out=out)
    if rows == 1:
        np.copyto(out, values[0])
        return out
    while rows > 2:
        half = rows // 2
        values = np.minimum(values[:half], values[half:rows], out=folded[:half])
        rows = half
    return np.minimum(values[0], values[1], out=out)


def encode_runs(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Run-length encode (instances, blocks) labels into flat ``(starts, values)``."""
    _instances, blocks = labels.shape
    flat = labels.ravel()
    change = np.ones(flat.shape, dtype=bool)
    change[1:] = flat[1:] != flat[:-1]
    change[::blocks] = True
    starts = np.flatnonzero(change)
    return starts, flat[starts]


def decode_runs(starts: np.ndarray, values: np.ndarray, size: int, repeat: int = 1) -> np.ndarray:
    """Flat labels from runs, each label repeated ``repeat`` times (blocks to minutes)."""
    lengths = np.empty_like(starts)
    np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
    lengths[-1:] = size - starts[-1:]
    if repeat != 1:
        lengths *= repeat
    return np.repeat(values, lengths)


def merge_short_runs(labels: np.ndarray, min_length: int, max_rounds: int = 16) -> np.ndarray:
    """Merge every run shorter than ``min_length`` into its longer neighbouring run.

    ``labels`` is (instances, blocks). Runs never merge across instances. A run that is the whole
    row is kept whatever its length.
    """
    if min_length <= 1:
        return labels
    instances, blocks = labels.shape
    starts, values = merge_short_encoded(*encode_runs(labels), blocks, labels.size, min_length)
    return decode_runs(starts, values, labels.size).reshape(instances, blocks)


def merge_short_encoded(
    starts: np.ndarray,
    values: np.ndarray,
    blocks: int,
    size: int,
    min_length: int,
    max_rounds: int = 16,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`merge_short_runs` on run-length encoded labels (rows of ``blocks``, ``size`` in all).

    The cost is proportional to the number of runs, not of blocks.
    """
    if min_length <= 1:
        return starts, values
    for _ in range(max_rounds):
        ends = np.append(starts[1:], size)
        lengths = ends - starts
        row = starts // blocks
        first_in_row = np.ones(starts.size, dtype=bool)
        first_in_row[1:] = row[1:] != row[:-1]
        last_in_row = np.ones(starts.size, dtype=bool)
        last_in_row[:-1] = row[1:] != row[:-1]
        short = (lengths < min_length) & ~(first_in_row & last_in_row)
        if not short.any():
            break
        # Only merge runs that are local minima in length, so two adjacent short runs do not
        # swap labels forever; the rest wait for the next round.
        previous_length = np.where(first_in_row, -1, np.roll(lengths, 1))
        next_length = np.where(last_in_row, -1, np.roll(lengths, -1))
        act = short & (lengths <= np.maximum(previous_length, next_length))
        take_previous = act & (previous_length >= next_length)
        take_next = act & ~take_previous
        values = values.copy()
        values[take_previous] = np.roll(values, 1)[take_previous]
        values[take_next] = np.roll(values, -1)[take_next]
        # Re-encode: drop starts whose value now equals the previous run's in the same row.
        keep = np.ones(starts.size, dtype=bool)
        keep[1:] = (values[1:] != values[:-1]) | (row[1:] != row[:-1])
        starts, values = starts[keep], values[keep]
    return starts, values
