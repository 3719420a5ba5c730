"""Turning noisy per-block phase scores into phases that do not flap.

Two steps. A Viterbi pass finds, per instance, the sequence of states with the best total score
where every change of state costs a fixed penalty; it is vectorised across instances, so the only
Python loop runs over time (blocks), not over minutes or instances. Then any run still shorter than
the minimum phase length is merged into its longer neighbour, which makes "no phase shorter than
the minimum" a guarantee rather than a tendency.
"""

from __future__ import annotations

import numpy as np

# Scores drift by a bounded amount per step; re-centring every so often keeps float32 precise.
_RENORMALISE_EVERY = 256


def viterbi_uniform_switch(scores: np.ndarray, switch_penalty: float) -> np.ndarray:
    """Best state path per instance under a uniform switching penalty.

    ``scores`` has shape (blocks, states, instances), time-major so that each step reads one
    contiguous slab; higher is better, in penalty units. Returns (instances, blocks) uint8 state
    indices. Ties prefer staying, then the lowest state index; the path is a pure function of the
    scores, so re-running gives identical output.
    """
    blocks, states, instances = scores.shape
    history = np.empty((blocks, states, instances), dtype=np.float32)
    # threshold[t] = max over states of history[t] - penalty: the best path into a state at t+1
    # came from the same state if that state's score at t is at least this, else from the best
    # state at t.
    threshold = np.empty((blocks, instances), dtype=np.float32)
    history[0] = scores[0]
    penalty = np.float32(switch_penalty)
    for step in range(1, blocks):
        previous = history[step - 1]
        best = threshold[step - 1]
        _max_over_states(previous, out=best)
        best -= penalty
        current = history[step]
        np.maximum(previous, best, out=current)
        current += scores[step]
        if step % _RENORMALISE_EVERY == 0:
            current -= current.max(axis=0)

    path = np.empty((blocks, instances), dtype=np.uint8)
    columns = np.arange(instances)
    state = np.argmax(history[-1], axis=0)
    path[-1] = state
    for step in range(blocks - 1, 0, -1):
        previous = history[step - 1]
        # Switches are rare (a few per day per instance), so the argmax is only computed for
        # the instances that switch at this step.
        switched = np.flatnonzero(previous[state, columns] < threshold[step - 1])
        if switched.size:
            state[switched] = np.argmax(previous[:, switched], axis=0)
        path[step - 1] = state
    return np.ascontiguousarray(path.T)


def _max_over_states(values: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Max over the first axis of a (states, instances) slab, by folding halves.

    Folding with ``np.maximum`` is about twice as fast as ``np.max(axis=0)`` on these small slabs,
    and this runs once per time step.
    """
    rows = values.shape[0]
    if rows & (rows - 1):
        return np.max(values, axis=0, out=out)
    while rows > 2:
        half = rows // 2
        values = np.maximum(values[:half], values[half:rows])
        rows = half
    if rows == 1:
        np.copyto(out, values[0])
        return out
    return np.maximum(values[0], values[1], out=out)


def merge_short_runs(labels: np.ndarray, min_length: int, max_rounds: int = 16) -> np.ndarray:
    """Merge every run shorter than ``min_length`` into its longer neighbouring run.

    ``labels`` is (instances, blocks). Runs never merge across instances. A run that is the whole
    row is kept whatever its length. Works on run-length encodings, so the cost is proportional to
    the number of runs, not of blocks.
    """
    if min_length <= 1:
        return labels
    instances, blocks = labels.shape
    flat = labels.ravel()
    change = np.ones(flat.shape, dtype=bool)
    change[1:] = flat[1:] != flat[:-1]
    change[::blocks] = True
    starts = np.flatnonzero(change)
    values = flat[starts]
    for _ in range(max_rounds):
        ends = np.append(starts[1:], flat.size)
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
    ends = np.append(starts[1:], flat.size)
    return np.repeat(values, ends - starts).reshape(instances, blocks)
