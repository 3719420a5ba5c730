"""What the README tells a newcomer to type works: the demo's ports and the simulator's keys."""

from __future__ import annotations

import re
from pathlib import Path

from apps.cloud.providers.tencent.simulator.constants import DEFAULT_CREDENTIALS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# Line breaks are where the text wraps, not part of what it says.
README_WORDS = " ".join(README.split())


def makefile_port_variables() -> set[str]:
    """The demo's ports a command line may override (``NAME_PORT ?= ...`` or ``PORT ?= ...``)."""
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^((?:[A-Z]+_)?PORT) \?=", text, flags=re.MULTILINE))


def test_it_moves_every_port_of_the_demo_in_the_other_ports_example() -> None:
    example = re.search(r"Other ports: `make demo ([^`]+)`", README_WORDS)
    assert example, "the README's other-ports example is gone"
    given = {assignment.split("=")[0] for assignment in example.group(1).split()}
    assert makefile_port_variables() == {"PORT", "SIMULATOR_PORT", "MAIL_PORT"}
    assert given == makefile_port_variables()


def test_it_names_the_key_pair_the_simulator_accepts() -> None:
    for secret_id, secret_key in DEFAULT_CREDENTIALS.items():
        assert f"SecretId `{secret_id}`" in README_WORDS
        assert f"SecretKey `{secret_key}`" in README_WORDS
