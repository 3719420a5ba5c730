"""Training throughput per GPU model, as data: price-performance, not price per hour.

BERT-base training samples per second on one card (DOMAIN.md): about 120 on a T4, 280 on a
V100, 500 on an A100; the others are placed between them by their published FP16 throughput.
Keys are matched against the instance's GPU model, longest first ("A100" before "A10").
"""

from __future__ import annotations

from collections.abc import Mapping

BERT_BASE_SAMPLES_PER_S: Mapping[str, float] = {
    "A100": 500.0,
    "V100": 280.0,
    "A10": 220.0,
    "T4": 120.0,
    "P40": 90.0,
    "P4": 45.0,
}


def samples_per_second(
    gpu_model: str, table: Mapping[str, float] = BERT_BASE_SAMPLES_PER_S
) -> float | None:
    """Per-card throughput of a GPU model (e.g. "NVIDIA V100"), None when unknown."""
    upper = gpu_model.upper()
    for key in sorted(table, key=len, reverse=True):
        if key.upper() in upper:
            return table[key]
    return None
