"""Phase classification: accuracy on the labelled synthetic set and the labelling contract."""

from __future__ import annotations

import numpy as np
import pytest

from apps.analysis.engine import REAL_PHASES, Phase, PhaseThresholds, classify_phases
from tests.fleet_generator import SyntheticTraces, generate_traces

BOUNDARY_TOLERANCE_MINUTES = 10


def confusion_matrix(truth: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Counts [true phase, predicted phase] over all five Phase values."""
    size = len(Phase)
    return np.bincount(
        truth.reshape(-1).astype(np.int64) * size + predicted.reshape(-1), minlength=size * size
    ).reshape(size, size)


def format_confusion(matrix: np.ndarray) -> str:
    names = [phase.name[:10] for phase in Phase]
    lines = ["true \\ predicted " + " ".join(f"{n:>10}" for n in names)]
    for phase in Phase:
        counts = " ".join(f"{c:>10}" for c in matrix[phase])
        lines.append(f"{phase.name[:16]:<16} {counts}")
    return "\n".join(lines)


def macro_f1(matrix: np.ndarray) -> tuple[float, dict[str, float]]:
    """Macro F1 over the four real phases (UNKNOWN is not a class the classifier chooses)."""
    scores = {}
    for phase in REAL_PHASES:
        true_positive = matrix[phase, phase]
        predicted = matrix[:, phase].sum()
        actual = matrix[phase, :].sum()
        scores[phase.name] = 2 * true_positive / (predicted + actual) if predicted + actual else 1
    return float(np.mean(list(scores.values()))), scores


def boundary_recall(
    truth: np.ndarray, predicted: np.ndarray, tolerance: int, *, observed_only: bool
) -> float:
    """Share of true phase changes with a predicted change within +/- ``tolerance`` minutes.

    ``truth`` is either the true labels (UNKNOWN where dropped; with ``observed_only`` a change
    counts when the minutes on both sides of it were observed) or the schedule before dropouts
    (every change counts, even one hidden in a long data gap). A predicted change is where
    consecutive observed minutes change phase; both edges of a gap between them count.
    """
    found = total = 0
    for truth_row, predicted_row in zip(truth, predicted, strict=True):
        before, after = truth_row[:-1], truth_row[1:]
        changed = before != after
        if observed_only:
            changed &= (before != Phase.UNKNOWN) & (after != Phase.UNKNOWN)
        true_changes = np.flatnonzero(changed) + 1
        observed = np.flatnonzero(predicted_row != Phase.UNKNOWN)
        values = predicted_row[observed]
        change = np.flatnonzero(values[1:] != values[:-1])
        candidates = np.sort(np.concatenate([observed[change] + 1, observed[change + 1]]))
        nearest = np.searchsorted(candidates, true_changes - tolerance)
        hit = nearest < candidates.size
        hit[hit] = candidates[nearest[hit]] <= true_changes[hit] + tolerance
        found += int(hit.sum())
        total += true_changes.size
    return found / total


def test_it_meets_the_accuracy_targets_on_the_labelled_synthetic_set(
    labelled_fleet: SyntheticTraces,
) -> None:
    """Acceptance: >= 92 % minute accuracy, macro F1 >= 0.88, 90 % of boundaries within 10 min.

    Boundaries: a true boundary is a change of phase between two observed minutes. A change that
    falls inside a data gap cannot be located by anyone (the gap is UNKNOWN, exactly), so it is
    reported but not asserted on.

    UNKNOWN handling: a dropped minute is UNKNOWN in the truth and must be UNKNOWN in the output
    (asserted separately); accuracy and F1 are measured over the observed minutes only, so the
    trivially right missing minutes do not inflate them. An observed minute predicted UNKNOWN
    would count as an error.
    """
    fleet = labelled_fleet
    predicted = classify_phases(fleet.gpu_util, fleet.gpu_mem, fleet.cpu_util)
    observed = fleet.labels != Phase.UNKNOWN
    matrix = confusion_matrix(fleet.labels[observed], predicted[observed])
    accuracy = np.trace(matrix) / matrix.sum()
    f1, per_phase = macro_f1(matrix)
    recall = boundary_recall(
        fleet.labels, predicted, BOUNDARY_TOLERANCE_MINUTES, observed_only=True
    )
    recall_with_gaps = boundary_recall(
        fleet.schedule, predicted, BOUNDARY_TOLERANCE_MINUTES, observed_only=False
    )
    instance_days = fleet.labels.size / 1440
    print(f"\n{instance_days:.0f} instance-days, {1 - observed.mean():.1%} of minutes missing")
    print(format_confusion(matrix))
    print(f"accuracy {accuracy:.4f}  macro F1 {f1:.4f}  per phase {per_phase}")
    print(
        f"observed boundaries found within +/-{BOUNDARY_TOLERANCE_MINUTES} min: {recall:.4f}; "
        f"including changes hidden in data gaps: {recall_with_gaps:.4f}"
    )

    assert instance_days >= 200
    assert all(matrix[phase].sum() > 1000 for phase in REAL_PHASES)
    # 0.977 is what the classifier reached before the memory-drop evidence was added; the
    # noisy-training fix must not cost accuracy on this set.
    assert accuracy >= 0.977
    assert f1 >= 0.94
    assert recall >= 0.90


def test_it_does_not_read_noisy_training_as_evaluation(
    noisy_training_fleet: SyntheticTraces,
) -> None:
    """Training drifting through 40-60 % with 6 points of noise, as on the fleet that found it.

    The classifier before the memory evidence labelled 32 % of these training minutes
    evaluation (accuracy 0.795); evaluation releases the GPU memory training holds, and that is
    what now tells them apart.
    """
    fleet = noisy_training_fleet
    predicted = classify_phases(fleet.gpu_util, fleet.gpu_mem, fleet.cpu_util)
    observed = fleet.labels != Phase.UNKNOWN
    matrix = confusion_matrix(fleet.labels[observed], predicted[observed])
    accuracy = np.trace(matrix) / matrix.sum()
    f1, per_phase = macro_f1(matrix)
    training_as_evaluation = matrix[Phase.TRAINING, Phase.EVALUATION] / matrix[Phase.TRAINING].sum()
    print(format_confusion(matrix))
    print(f"accuracy {accuracy:.4f}  macro F1 {f1:.4f}  per phase {per_phase}")
    print(f"training minutes labelled evaluation: {training_as_evaluation:.2%}")

    # The bar (issue 11): the noisy-training case keeps the labelled set's accuracy,
    # 0.977 or better (measured 0.9776). It names 31-36 % of training minutes read as
    # evaluation as the fault and no target; 3 % (measured 1.3 %) is this test's own bar.
    assert training_as_evaluation <= 0.03
    assert accuracy >= 0.977
    assert f1 >= 0.93
    assert matrix[Phase.EVALUATION, Phase.EVALUATION] / matrix[Phase.EVALUATION].sum() >= 0.9


def test_it_marks_exactly_the_missing_minutes_unknown(labelled_fleet: SyntheticTraces) -> None:
    fleet = labelled_fleet
    predicted = classify_phases(fleet.gpu_util, fleet.gpu_mem, fleet.cpu_util)
    np.testing.assert_array_equal(predicted == Phase.UNKNOWN, fleet.labels == Phase.UNKNOWN)


def test_it_labels_a_minute_without_cpu_or_memory_and_not_one_without_gpu_utilization() -> None:
    fleet = generate_traces(np.random.default_rng(1), instances=1, days=1, missing_fraction=0)
    gpu, mem, cpu = fleet.gpu_util.copy(), fleet.gpu_mem.copy(), fleet.cpu_util.copy()
    cpu[0, 100:103] = np.nan
    mem[0, 200:230] = np.nan
    gpu[0, 300:302] = np.nan

    predicted = classify_phases(gpu, mem, cpu)

    assert (predicted[0, 300:302] == Phase.UNKNOWN).all()
    assert (np.delete(predicted[0], [300, 301]) != Phase.UNKNOWN).all()
    assert (predicted[0, 100:103] == fleet.labels[0, 100:103]).all()


def only_gpu_and(
    fleet: SyntheticTraces, *, mem: bool, cpu: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fleet's inputs with GPU memory and/or CPU missing throughout (NaN)."""
    missing = np.full_like(fleet.cpu_util, np.nan)
    return (
        fleet.gpu_util,
        fleet.gpu_mem if mem else missing,
        fleet.cpu_util if cpu else missing,
    )


@pytest.mark.parametrize(
    ("mem", "cpu"), [(True, False), (False, True), (False, False)], ids=["no-cpu", "no-mem", "gpu"]
)
def test_it_separates_idle_from_busy_on_a_fleet_missing_a_metric(
    labelled_fleet: SyntheticTraces, mem: bool, cpu: bool
) -> None:
    """A source without CPU (or GPU memory) still gets phases: GPU utilization alone separates
    idle from busy (training and evaluation); before, every such minute was UNKNOWN."""
    fleet = labelled_fleet
    predicted = classify_phases(*only_gpu_and(fleet, mem=mem, cpu=cpu))
    observed = fleet.labels != Phase.UNKNOWN
    truth, guess = fleet.labels[observed], predicted[observed]
    busy = np.isin(truth, [Phase.EVALUATION, Phase.TRAINING])
    guessed_busy = np.isin(guess, [Phase.EVALUATION, Phase.TRAINING])

    assert (guess != Phase.UNKNOWN).all()
    assert np.mean(busy == guessed_busy) >= 0.98
    assert np.mean(guess[truth == Phase.IDLE] == Phase.IDLE) >= 0.95
    assert np.mean(guess[truth == Phase.TRAINING] == Phase.TRAINING) >= 0.98


def test_it_still_tells_data_processing_from_idle_without_gpu_memory(
    labelled_fleet: SyntheticTraces,
) -> None:
    fleet = labelled_fleet
    predicted = classify_phases(*only_gpu_and(fleet, mem=False, cpu=True))
    observed = fleet.labels != Phase.UNKNOWN
    data = fleet.labels[observed] == Phase.DATA_PROCESSING

    assert np.mean(predicted[observed][data] == Phase.DATA_PROCESSING) >= 0.9


def stretch(minutes: int, gpu: float, mem: float, cpu: float) -> np.ndarray:
    """(3, minutes) steady metrics with a little noise."""
    noise = np.random.default_rng(minutes).normal(0.0, 0.3, (3, minutes))
    return np.clip(np.array([gpu, mem, cpu])[:, np.newaxis] + noise, 0, 100)


def test_it_decides_blocks_with_a_missing_minute_on_the_minutes_they_have() -> None:
    """15 minutes of data processing between idle hours, one minute missing in each 5-minute
    block: before, each block was discarded and the stretch bridged over as idle."""
    metrics = np.concatenate(
        [stretch(60, 1, 40, 3), stretch(15, 12, 40, 85), stretch(60, 1, 40, 3)], axis=1
    )
    metrics[:, [62, 67, 72]] = np.nan

    predicted = classify_phases(metrics[0], metrics[1], metrics[2])

    assert (predicted[[62, 67, 72]] == Phase.UNKNOWN).all()
    data = np.delete(np.arange(60, 75), [2, 7, 12])
    assert (predicted[data] == Phase.DATA_PROCESSING).all()
    assert (predicted[:60] == Phase.IDLE).all()
    assert (predicted[75:] == Phase.IDLE).all()


def test_it_leaves_blocks_with_too_few_minutes_to_their_neighbours() -> None:
    """Two GPU minutes of each 5-minute block (under the minimum of 3) do not decide it."""
    metrics = np.concatenate(
        [stretch(30, 1, 0, 3), stretch(15, 50, 60, 30), stretch(30, 1, 0, 3)], axis=1
    )
    gaps = [m for block in (30, 35, 40) for m in range(block, block + 3)]
    metrics[0, gaps] = np.nan
    seen = [33, 34, 38, 39, 43, 44]

    predicted = classify_phases(metrics[0], metrics[1], metrics[2])
    with_any_minute = classify_phases(
        metrics[0],
        metrics[1],
        metrics[2],
        PhaseThresholds().with_overrides({"block_min_observed_minutes": 1}),
    )

    assert (predicted[gaps] == Phase.UNKNOWN).all()
    assert (predicted[seen] == Phase.IDLE).all()
    assert (with_any_minute[seen] == Phase.EVALUATION).all()


def test_it_caps_the_minimum_observed_minutes_at_the_block_length() -> None:
    """An organization that chose 2-minute blocks keeps working: uncapped, the minimum of 3
    observed minutes would discard every 2-minute block."""
    metrics = np.concatenate(
        [stretch(30, 1, 0, 3), stretch(20, 12, 40, 85), stretch(30, 1, 0, 3)], axis=1
    )
    thresholds = PhaseThresholds().with_overrides({"block_minutes": 2, "feature_window_minutes": 2})

    predicted = classify_phases(metrics[0], metrics[1], metrics[2], thresholds)

    assert (predicted[32:48] == Phase.DATA_PROCESSING).all()
    assert (predicted[:28] == Phase.IDLE).all()


def test_it_does_not_report_phases_shorter_than_the_minimum(
    labelled_fleet: SyntheticTraces,
) -> None:
    """Between data gaps a phase may be cut short; on unbroken data no run is below 10 min."""
    fleet = generate_traces(np.random.default_rng(5), instances=10, days=2, missing_fraction=0)
    predicted = classify_phases(fleet.gpu_util, fleet.gpu_mem, fleet.cpu_util)
    for row in predicted:
        change = np.flatnonzero(row[1:] != row[:-1]) + 1
        lengths = np.diff(np.concatenate([[0], change, [row.size]]))
        # The first and last runs are cut by the period's edges, not by the classifier.
        assert lengths[1:-1].min() >= 10


def test_it_lets_a_longer_minimum_phase_remove_shorter_phases() -> None:
    fleet = generate_traces(np.random.default_rng(6), instances=4, days=2, missing_fraction=0)
    thresholds = PhaseThresholds().with_overrides({"min_phase_minutes": 60})
    predicted = classify_phases(fleet.gpu_util, fleet.gpu_mem, fleet.cpu_util, thresholds)
    for row in predicted:
        change = np.flatnonzero(row[1:] != row[:-1]) + 1
        lengths = np.diff(np.concatenate([[0], change, [row.size]]))
        assert lengths[1:-1].min() >= 60


def test_it_gives_identical_labels_when_run_again(labelled_fleet: SyntheticTraces) -> None:
    fleet = labelled_fleet
    first = classify_phases(fleet.gpu_util, fleet.gpu_mem, fleet.cpu_util)
    second = classify_phases(
        fleet.gpu_util.astype(np.float64), fleet.gpu_mem.copy(), fleet.cpu_util.copy()
    )
    np.testing.assert_array_equal(first, second)


def test_it_classifies_one_instance_like_the_same_row_of_a_fleet(
    labelled_fleet: SyntheticTraces,
) -> None:
    fleet = labelled_fleet
    whole = classify_phases(fleet.gpu_util, fleet.gpu_mem, fleet.cpu_util)
    single = classify_phases(fleet.gpu_util[3], fleet.gpu_mem[3], fleet.cpu_util[3])
    assert single.shape == (fleet.gpu_util.shape[1],)
    np.testing.assert_array_equal(single, whole[3])


def test_it_handles_a_period_that_is_not_a_whole_number_of_blocks() -> None:
    fleet = generate_traces(np.random.default_rng(2), instances=2, days=1, missing_fraction=0)
    predicted = classify_phases(
        fleet.gpu_util[:, :1003], fleet.gpu_mem[:, :1003], fleet.cpu_util[:, :1003]
    )
    assert predicted.shape == (2, 1003)
    assert (predicted != Phase.UNKNOWN).all()


def test_it_labels_an_instance_without_data_unknown() -> None:
    empty = np.full((2, 600), np.nan, dtype=np.float32)
    assert (classify_phases(empty, empty, empty) == Phase.UNKNOWN).all()


@pytest.mark.parametrize(
    ("gpu_util", "gpu_mem", "cpu_util", "expected"),
    [
        (1.0, 0.0, 3.0, Phase.IDLE),
        (1.0, 60.0, 3.0, Phase.IDLE),  # memory held by an idle process is still idle
        (6.0, 60.0, 80.0, Phase.DATA_PROCESSING),
        (50.0, 60.0, 30.0, Phase.EVALUATION),
    ],
)
def test_it_classifies_steady_signatures(
    gpu_util: float, gpu_mem: float, cpu_util: float, expected: Phase
) -> None:
    minutes = 120
    noise = np.random.default_rng(0).normal(0, 0.3, minutes)
    predicted = classify_phases(
        np.clip(gpu_util + noise, 0, 100),
        np.full(minutes, gpu_mem),
        np.clip(cpu_util + noise, 0, 100),
    )
    assert (predicted == expected).all()


def test_it_classifies_fluctuating_high_utilization_with_high_memory_as_training() -> None:
    rng = np.random.default_rng(0)
    predicted = classify_phases(
        np.clip(rng.normal(60, 15, 240), 0, 100), np.full(240, 85.0), np.full(240, 40.0)
    )
    assert (predicted == Phase.TRAINING).all()


def test_it_rejects_arrays_of_different_shapes() -> None:
    with pytest.raises(ValueError, match="one shape"):
        classify_phases(np.zeros(10), np.zeros(10), np.zeros(11))


def test_it_keeps_wider_feature_windows_within_each_instance(
    labelled_fleet: SyntheticTraces,
) -> None:
    fleet = labelled_fleet
    thresholds = PhaseThresholds().with_overrides({"feature_window_minutes": 15})
    whole = classify_phases(fleet.gpu_util[:4], fleet.gpu_mem[:4], fleet.cpu_util[:4], thresholds)
    for row in range(4):
        single = classify_phases(
            fleet.gpu_util[row], fleet.gpu_mem[row], fleet.cpu_util[row], thresholds
        )
        np.testing.assert_array_equal(single, whole[row])
