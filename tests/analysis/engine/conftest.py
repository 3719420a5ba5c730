"""Shared fixtures for the engine tests: one labelled synthetic fleet, generated once."""

from __future__ import annotations

import numpy as np
import pytest

from tests.fleet_generator import SyntheticTraces, generate_traces

# 30 instances x 7 days = 210 instance-days, 10 % of minutes missing in runs.
ACCURACY_INSTANCES = 30
ACCURACY_DAYS = 7


@pytest.fixture(scope="session")
def labelled_fleet() -> SyntheticTraces:
    """The labelled synthetic set the accuracy acceptance criteria are measured on."""
    return generate_traces(
        np.random.default_rng(20260501),
        instances=ACCURACY_INSTANCES,
        days=ACCURACY_DAYS,
        missing_fraction=0.10,
    )


@pytest.fixture(scope="session")
def noisy_training_fleet() -> SyntheticTraces:
    """The noisy-training case: training drifting through evaluation's band with 6-point noise."""
    return generate_traces(
        np.random.default_rng(20260502),
        instances=ACCURACY_INSTANCES,
        days=ACCURACY_DAYS,
        missing_fraction=0.10,
        noisy_training=True,
    )
