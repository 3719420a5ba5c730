"""`make audit` (.ci/dependency_audit.py): what fails the run, what only says it could not look.

The commands' answers below have the shapes pip-audit 2.10 and npm 10 print (an advisory found,
a service that cannot be reached, a registry mirror without the audit endpoint); the runner
and the OSV look-up are handed in, so no test depends on this machine's network.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "dependency_audit", ROOT / ".ci/dependency_audit.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dependency_audit"] = module
    spec.loader.exec_module(module)
    return module


audit = _load()

DJANGO_ADVISORY = {
    "id": "PYSEC-2099-1",
    "fix_versions": ["5.2.99"],
    "aliases": ["GHSA-xxxx-yyyy-zzzz", "CVE-2099-0001"],
    "description": "SQL injection in ...",
}


def _pip_report(*vulns: dict[str, Any], skipped: bool = False) -> str:
    dependencies: list[dict[str, Any]]
    if skipped:
        dependencies = [
            {
                "name": "django",
                "skip_reason": "Dependency not found on PyPI and could not be audited",
            }
        ]
    else:
        dependencies = [
            {"name": "django", "version": "5.2.19", "vulns": list(vulns)},
            {"name": "celery", "version": "5.7.0", "vulns": []},
        ]
    return json.dumps({"dependencies": dependencies, "fixes": []})


NPM_UNREACHABLE = json.dumps(
    {
        "message": "405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk",
        "statusCode": 405,
        "error": {"summary": "", "detail": ""},
    }
)


def _npm_report(severity: str | None) -> str:
    vulnerabilities = {}
    if severity:
        vulnerabilities["echarts"] = {
            "name": "echarts",
            "severity": severity,
            "range": "<6.2.0",
            "via": [
                {"title": "Prototype pollution", "url": "https://github.com/advisories/GHSA-1"}
            ],
        }
    counts = {"info": 0, "low": 0, "moderate": 0, "high": 0, "critical": 0}
    if severity:
        counts[severity] = 1
    return json.dumps(
        {
            "vulnerabilities": vulnerabilities,
            "metadata": {"vulnerabilities": {**counts, "total": 1}},
        }
    )


class Machine:
    """Answers pip-audit per service and npm audit as told, and records what was run."""

    def __init__(self, pip: dict[str, tuple[int, str, str]], npm: tuple[int, str, str]) -> None:
        self.pip, self.npm = pip, npm
        self.commands: list[list[str]] = []

    def __call__(self, command: Sequence[str], cwd: Path) -> tuple[int, str, str]:
        self.commands.append(list(command))
        if command[0] == "npm":
            return self.npm
        return self.pip[command[command.index("--vulnerability-service") + 1]]


OSV_DOWN = (1, "", "requests.exceptions.ConnectionError: Failed to resolve 'api.osv.dev'")


def _run(machine: Machine, lookup: Any = lambda advisory_id: None) -> tuple[int, str]:
    lines: list[str] = []
    parts = [
        audit.audit_python(
            ROOT / "requirements.txt", run=machine, lookup=lookup, pip_audit="pip-audit"
        ),
        audit.audit_frontend(ROOT / "frontend", run=machine),
    ]
    return audit.report(parts, write=lines.append), "\n".join(lines)


def test_it_says_clearly_when_no_advisory_data_is_reachable_and_does_not_fail() -> None:
    machine = Machine(
        {"osv": OSV_DOWN, "pypi": (0, _pip_report(skipped=True), "")}, (1, NPM_UNREACHABLE, "")
    )
    code, output = _run(machine)
    assert code == 0
    assert output.count("NOT AUDITED: the advisory data could not be reached") == 2
    assert "pip-audit -s osv: requests.exceptions.ConnectionError" in output
    assert "pip-audit -s pypi: every package was skipped" in output
    assert "npm audit: 405 Method Not Allowed" in output
    # Both of pip-audit's services were tried, on the exact pins, installing nothing.
    services = [
        c[c.index("--vulnerability-service") + 1] for c in machine.commands if c[0] != "npm"
    ]
    assert services == ["osv", "pypi"]
    assert all("--no-deps" in c and "--disable-pip" in c for c in machine.commands if c[0] != "npm")


def test_it_fails_on_a_high_python_advisory_with_its_severity_from_osv() -> None:
    machine = Machine(
        {
            "osv": (1, _pip_report(DJANGO_ADVISORY), ""),
            "pypi": (1, _pip_report(DJANGO_ADVISORY), ""),
        },
        (0, _npm_report(None), ""),
    )
    asked: list[str] = []

    def lookup(advisory_id: str) -> dict[str, Any] | None:
        asked.append(advisory_id)
        if advisory_id == "GHSA-xxxx-yyyy-zzzz":
            return {"id": advisory_id, "database_specific": {"severity": "HIGH"}}
        return None

    code, output = _run(machine, lookup)
    assert code == 1
    assert "BLOCKS: django 5.2.19: PYSEC-2099-1 [high], fixed in 5.2.99" in output
    # Found by both services, reported once.
    assert output.count("PYSEC-2099-1") == 1
    assert asked[:2] == ["PYSEC-2099-1", "GHSA-xxxx-yyyy-zzzz"]
    assert "FAILED, 1 known high-severity or critical advisories" in output


def test_it_passes_a_moderate_advisory_but_names_it() -> None:
    machine = Machine(
        {"osv": (1, _pip_report(DJANGO_ADVISORY), ""), "pypi": OSV_DOWN},
        (1, _npm_report("moderate"), ""),
    )
    moderate = {
        "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N"}]
    }
    code, output = _run(machine, lambda advisory_id: moderate)
    assert code == 0
    assert "note: django 5.2.19: PYSEC-2099-1 [moderate]" in output
    assert "note: echarts <6.2.0: https://github.com/advisories/GHSA-1 [moderate]" in output
    assert "make audit: passed" in output


def test_it_counts_an_advisory_of_unknown_severity_as_high() -> None:
    machine = Machine(
        {"osv": OSV_DOWN, "pypi": (1, _pip_report(DJANGO_ADVISORY), "")}, (0, _npm_report(None), "")
    )
    code, output = _run(machine)
    assert code == 1
    assert "[unknown] (severity unknown: counted as high)" in output


@pytest.mark.parametrize("severity", ["high", "critical"])
def test_it_fails_on_a_high_or_critical_npm_advisory(severity: str) -> None:
    machine = Machine(
        {"osv": (0, _pip_report(), ""), "pypi": (0, _pip_report(), "")},
        (1, _npm_report(severity), ""),
    )
    code, output = _run(machine)
    assert code == 1
    assert f"BLOCKS: echarts <6.2.0: https://github.com/advisories/GHSA-1 [{severity}]" in output


@pytest.mark.parametrize(
    ("vector", "score"),
    [
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8),
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N", 5.4),
        ("CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N", 6.4),
        ("CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10.0),
        ("CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:N/I:N/A:N", 0.0),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", None),
    ],
)
def test_it_scores_cvss_v3_vectors_as_the_specification_does(
    vector: str, score: float | None
) -> None:
    assert audit.cvss3_base_score(vector) == score
