#!/usr/bin/env python3
"""`make audit`: known advisories against the pinned dependencies, Python and front-end.

- Python: ``pip-audit`` over requirements.txt (exact pins, so ``--no-deps --disable-pip``:
  nothing is resolved or installed), asked of both of its advisory services, OSV and PyPI's
  JSON API. pip-audit does not report severities, so each advisory it finds is looked up in
  OSV (the advisory and its aliases): GitHub's severity where there is one, else the CVSS v3
  base score. An advisory whose severity cannot be told counts as high.
- Front-end: ``npm audit --omit=dev`` in frontend/ (what ships to browsers), which reports
  severities itself.

Fails (exit 1) on a known high or critical advisory. Where the advisory data cannot be
reached (no network beyond the package registries: a registry mirror without the audit
endpoint, OSV unresolvable), it says so in capitals, names what was not audited, and does not
fail: an unreachable service is not a vulnerability. Nothing is ever installed or upgraded.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PIP_AUDIT_SERVICES = ("osv", "pypi")
OSV_VULN_URL = "https://api.osv.dev/v1/vulns/{id}"
HIGH_SEVERITIES = ("high", "critical")
COMMAND_TIMEOUT_SECONDS = 300

# (returncode, stdout, stderr) of a command; injectable so the decisions are testable.
Runner = Callable[[Sequence[str], Path], tuple[int, str, str]]
# An OSV advisory by id, or None when OSV cannot be reached or does not know it.
OsvLookup = Callable[[str], dict[str, Any] | None]


@dataclass
class Finding:
    package: str
    version: str
    advisory: str
    severity: str  # low, moderate, high, critical, or unknown
    fix_versions: list[str] = field(default_factory=list)

    @property
    def blocks(self) -> bool:
        # An advisory whose severity cannot be told might be high: it blocks, saying so.
        return self.severity in (*HIGH_SEVERITIES, "unknown")


@dataclass
class PartResult:
    """What one part (Python or front-end) found, or why its advisory data was unreachable."""

    name: str
    findings: list[Finding] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)
    audited: bool = False
    notes: list[str] = field(default_factory=list)


def run_command(command: Sequence[str], cwd: Path) -> tuple[int, str, str]:
    try:
        done = subprocess.run(
            list(command),
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError as error:
        return 127, "", str(error)
    except subprocess.TimeoutExpired:
        return 124, "", f"no answer within {COMMAND_TIMEOUT_SECONDS} s"
    return done.returncode, done.stdout, done.stderr


def osv_lookup(advisory_id: str) -> dict[str, Any] | None:
    request = urllib.request.Request(
        OSV_VULN_URL.format(id=advisory_id), headers={"Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)
    except (OSError, ValueError, urllib.error.URLError):
        return None


# --- severity --------------------------------------------------------------------------------

_CVSS3_WEIGHTS = {
    "AV": {"N": 0.85, "A": 0.62, "L": 0.55, "P": 0.2},
    "AC": {"L": 0.77, "H": 0.44},
    "UI": {"N": 0.85, "R": 0.62},
    "C": {"H": 0.56, "L": 0.22, "N": 0.0},
    "I": {"H": 0.56, "L": 0.22, "N": 0.0},
    "A": {"H": 0.56, "L": 0.22, "N": 0.0},
}
_CVSS3_PRIVILEGES = {"U": {"N": 0.85, "L": 0.62, "H": 0.27}, "C": {"N": 0.85, "L": 0.68, "H": 0.5}}


def _round_up(value: float) -> float:
    """CVSS v3.1's Roundup: the smallest one-decimal number not below ``value``."""
    scaled = round(value * 100_000)
    if scaled % 10_000 == 0:
        return scaled / 100_000
    return (math.floor(scaled / 10_000) + 1) / 10


def cvss3_base_score(vector: str) -> float | None:
    """The base score of a CVSS v3.x vector (``CVSS:3.1/AV:N/...``), None if it is not one."""
    parts = vector.split("/")
    if not parts or not parts[0].startswith("CVSS:3"):
        return None
    metrics = dict(part.split(":", 1) for part in parts[1:] if ":" in part)
    try:
        scope = metrics["S"]
        weights = {name: _CVSS3_WEIGHTS[name][metrics[name]] for name in _CVSS3_WEIGHTS}
        privileges = _CVSS3_PRIVILEGES[scope][metrics["PR"]]
    except KeyError:
        return None
    iss = 1 - (1 - weights["C"]) * (1 - weights["I"]) * (1 - weights["A"])
    unchanged = scope == "U"
    impact = 6.42 * iss if unchanged else 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15
    exploitability = 8.22 * weights["AV"] * weights["AC"] * privileges * weights["UI"]
    if impact <= 0:
        return 0.0
    total = impact + exploitability if scope == "U" else 1.08 * (impact + exploitability)
    return _round_up(min(total, 10))


def severity_of_score(score: float) -> str:
    if score >= 9.0:
        return "critical"
    if score >= 7.0:
        return "high"
    if score >= 4.0:
        return "moderate"
    return "low"


def osv_severity(advisory: dict[str, Any]) -> str | None:
    """GitHub's severity of an OSV advisory, else its CVSS v3 score's; None if neither."""
    stated = str((advisory.get("database_specific") or {}).get("severity") or "").lower()
    if stated in ("low", "moderate", "medium", "high", "critical"):
        return "moderate" if stated == "medium" else stated
    for entry in advisory.get("severity") or []:
        score = cvss3_base_score(str(entry.get("score", "")))
        if score is not None:
            return severity_of_score(score)
    return None


def advisory_severity(ids: Sequence[str], lookup: OsvLookup) -> str:
    """The severity of an advisory known by ``ids`` (its id, then its aliases)."""
    for advisory_id in ids:
        advisory = lookup(advisory_id)
        if advisory is not None:
            severity = osv_severity(advisory)
            if severity is not None:
                return severity
    return "unknown"


# --- Python: pip-audit -----------------------------------------------------------------------


def pip_audit_command(pip_audit: str, requirements: Path, service: str) -> list[str]:
    return [
        pip_audit,
        "--requirement",
        str(requirements),
        "--no-deps",
        "--disable-pip",
        "--vulnerability-service",
        service,
        "--format",
        "json",
        "--progress-spinner",
        "off",
    ]


def read_pip_audit(
    returncode: int, stdout: str, stderr: str
) -> tuple[list[dict[str, Any]] | None, str]:
    """The audited dependencies of a pip-audit run, or None and why its data was unreachable.

    pip-audit exits 1 when it finds advisories (still printing its JSON), and also when its
    service cannot be reached (then with no JSON). A service that answers "not found" for
    every package (a PyPI mirror without the per-version JSON) audited nothing either.
    """
    try:
        report = json.loads(stdout) if stdout.strip() else None
    except ValueError:
        report = None
    if not isinstance(report, dict) or "dependencies" not in report:
        lines = [line for line in stderr.strip().splitlines() if line.strip()]
        return None, lines[-1] if lines else f"pip-audit exited {returncode} without a report"
    dependencies = report["dependencies"]
    audited = [dependency for dependency in dependencies if "skip_reason" not in dependency]
    if dependencies and not audited:
        return None, f"every package was skipped ({dependencies[0]['skip_reason']})"
    return audited, ""


def audit_python(
    requirements: Path,
    run: Runner = run_command,
    lookup: OsvLookup = osv_lookup,
    pip_audit: str | None = None,
) -> PartResult:
    result = PartResult(name=f"Python ({requirements.name}, pip-audit)")
    beside = Path(sys.executable).parent / "pip-audit"  # the virtualenv's own
    pip_audit = pip_audit or (str(beside) if beside.exists() else shutil.which("pip-audit"))
    if pip_audit is None:
        result.unreachable.append("pip-audit is not installed (make install)")
        return result
    seen: dict[tuple[str, str, str], Finding] = {}
    for service in PIP_AUDIT_SERVICES:
        code, out, err = run(pip_audit_command(pip_audit, requirements, service), ROOT)
        audited, why = read_pip_audit(code, out, err)
        if audited is None:
            result.unreachable.append(f"pip-audit -s {service}: {why}")
            continue
        result.audited = True
        result.notes.append(f"pip-audit -s {service}: {len(audited)} packages audited")
        for dependency in audited:
            for vuln in dependency.get("vulns", []):
                key = (dependency["name"], dependency.get("version", ""), vuln["id"])
                if key in seen:
                    continue
                ids = [vuln["id"], *vuln.get("aliases", [])]
                seen[key] = Finding(
                    package=dependency["name"],
                    version=dependency.get("version", ""),
                    advisory=vuln["id"],
                    severity=advisory_severity(ids, lookup),
                    fix_versions=list(vuln.get("fix_versions", [])),
                )
    result.findings = list(seen.values())
    return result


# --- front-end: npm audit --------------------------------------------------------------------


def read_npm_audit(stdout: str) -> tuple[list[Finding] | None, str]:
    """The advisories of ``npm audit --json``, or None and why the registry gave none.

    npm exits 1 both when it finds advisories and when the registry has no audit endpoint
    (a mirror answers 405); only the JSON tells them apart.
    """
    try:
        report = json.loads(stdout) if stdout.strip() else None
    except ValueError:
        report = None
    if not isinstance(report, dict):
        return None, "npm audit printed no report"
    metadata = report.get("metadata")
    if not isinstance(metadata, dict) or "vulnerabilities" not in metadata:
        error = report.get("error")
        message = report.get("message") or (error.get("summary") if isinstance(error, dict) else "")
        return None, str(message or "npm audit gave no advisory data")
    findings = []
    for name, vulnerability in sorted((report.get("vulnerabilities") or {}).items()):
        via = [item for item in vulnerability.get("via", []) if isinstance(item, dict)]
        advisories = ", ".join(str(item.get("url") or item.get("title") or "") for item in via)
        findings.append(
            Finding(
                package=name,
                version=str(vulnerability.get("range", "")),
                advisory=advisories
                or "(through " + ", ".join(map(str, vulnerability.get("via", []))) + ")",
                severity=str(vulnerability.get("severity", "unknown")),
            )
        )
    return findings, ""


def audit_frontend(frontend: Path, run: Runner = run_command) -> PartResult:
    result = PartResult(name="front-end (frontend/package-lock.json, npm audit --omit=dev)")
    _, out, err = run(["npm", "audit", "--omit=dev", "--json"], frontend)
    findings, why = read_npm_audit(out)
    if findings is None:
        lines = [line for line in err.strip().splitlines() if line.strip()]
        result.unreachable.append(f"npm audit: {why}" + (f" ({lines[0]})" if lines else ""))
        return result
    result.audited = True
    result.findings = findings
    return result


# --- report ----------------------------------------------------------------------------------


def report(parts: Sequence[PartResult], write: Callable[[str], None] = print) -> int:
    """Print what each part found; 1 if any advisory is high, critical (or of unknown severity)."""
    blocking = 0
    for part in parts:
        write(f"== {part.name}")
        for note in part.notes:
            write(f"   {note}")
        for reason in part.unreachable:
            write(f"   unreachable: {reason}")
        if not part.audited:
            write(
                "   NOT AUDITED: the advisory data could not be reached from here; "
                "this part is not checked (and does not fail the run)."
            )
            continue
        if not part.findings:
            write("   no known advisories")
        for finding in part.findings:
            fix = f", fixed in {', '.join(finding.fix_versions)}" if finding.fix_versions else ""
            mark = "BLOCKS" if finding.blocks else "note"
            note = " (severity unknown: counted as high)" if finding.severity == "unknown" else ""
            write(
                f"   {mark}: {finding.package} {finding.version}: {finding.advisory} "
                f"[{finding.severity}]{note}{fix}"
            )
            blocking += finding.blocks
    if blocking:
        write(f"make audit: FAILED, {blocking} known high-severity or critical advisories")
        return 1
    if all(part.audited for part in parts):
        write("make audit: passed, no known high-severity advisory")
    else:
        write("make audit: passed for what could be audited; see NOT AUDITED above")
    return 0


def main(argv: Sequence[str] = ()) -> int:
    parts = [audit_python(ROOT / "requirements.txt"), audit_frontend(ROOT / "frontend")]
    return report(parts)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
