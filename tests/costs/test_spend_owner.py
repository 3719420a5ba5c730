"""``costs`` owns spend: no module outside the few listed here reads the bills' money itself.

Digests, alerts, budgets and /metrics once summed the bill lines each in their own way; they
ask ``apps.costs.spend`` now. This test reads every module of ``apps`` (its syntax tree, not
its text) and fails on any that, outside the allowed list, imports a money-bearing bill model
or rollup, imports an exact-sum helper of the bills, names a bill table in SQL, or sums a
``cost`` column with ``Sum``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ROOT / "apps"

#: (module, name) pairs that carry the bills' money: importing one is reading spend.
MONEY_NAMES = {
    ("apps.billing.models", "BillLine"),
    ("apps.billing.models", "InstanceBillDay"),
    ("apps.billing.models", "InstanceComponentDay"),
    ("apps.costs.models", "CostDay"),
    ("apps.costs.models", "CostProjectDay"),
    ("apps.analysis.models", "BilledHoursDay"),
    ("apps.analysis.models", "WasteDay"),
    ("apps.billing.selectors", "cost_total"),
    ("apps.billing.selectors", "cost_totals"),
    ("apps.billing.selectors", "billed_runtime"),
    ("apps.billing.selectors", "unallocated_cost_by_reason"),
    ("apps.costs.sums", "grouped_sums"),
    ("apps.costs.sums", "grouped_rows"),
    ("apps.costs.sums", "day_rows"),
}
#: Modules whose import as a whole would reach the same names unnoticed.
MONEY_MODULES = {"apps.billing.models", "apps.billing.selectors", "apps.costs.models", "apps.costs.sums"}  # fmt: skip
#: Tables of bill money, as raw SQL would name them.
MONEY_TABLES = ("billing_billline", "billing_instancebillday", "billing_instancecomponentday", "costs_costday", "costs_costprojectday")  # fmt: skip

#: Where reading the bills' money is the module's job, and why (a directory: all of it).
ALLOWED = {
    "apps/billing/": "the bill lines' own app: the sync, its rollups and their reconciliation",
    "apps/costs/": "the owner of spend",
    "apps/exports/selectors.py": "streams the raw lines FOCUS and costs.csv write, one each",
    # The analysis sits under costs (costs splits spend by phase): it prices instance-hours
    # from their compute lines itself.
    "apps/analysis/pricing.py": "prices an instance-hour from its runtime lines",
    "apps/analysis/fleet_pricing.py": "the same prices for a fleet, in SQL",
    "apps/analysis/billed_hours.py": "the analysis' own rollup of billed runtime hours",
    "apps/analysis/waste_days.py": "the same prices for a fleet, kept as running totals by day",
    "apps/recommendations/selectors.py": "realised savings: recommendations may not import costs",
    "apps/recommendations/evidence.py": "billed runtime as a rule's price evidence (same reason)",
}


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _is_cost_sum(node: ast.Call) -> bool:
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name != "Sum" or not node.args:
        return False
    first = node.args[0]
    if isinstance(first, ast.Call) and getattr(first.func, "id", "") == "F" and first.args:
        first = first.args[0]
    return (
        isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and (first.value == "cost" or first.value.endswith("__cost"))
    )


def money_reads(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """What in ``source`` (the module ``module``) reads the bills' money, one entry each."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            origin = _resolve(module, node, is_package)
            for alias in node.names:
                if (origin, alias.name) in MONEY_NAMES or f"{origin}.{alias.name}" in MONEY_MODULES:
                    found.append(f"line {node.lineno}: imports {origin}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MONEY_MODULES:
                    found.append(f"line {node.lineno}: imports {alias.name}")
        elif isinstance(node, ast.Call) and _is_cost_sum(node):
            found.append(f"line {node.lineno}: sums a cost column")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.lower()
            if any(table in text for table in MONEY_TABLES):
                found.append(f"line {node.lineno}: names a bill table in SQL")
    return found


def _allowed(relative: str) -> bool:
    return any(
        relative == key or (key.endswith("/") and relative.startswith(key)) for key in ALLOWED
    )


def _scan() -> dict[str, list[str]]:
    reads = {}
    for path in sorted(APPS.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        relative = path.relative_to(ROOT).as_posix()
        found = money_reads(
            path.read_text(), _module_of(path), is_package=path.name == "__init__.py"
        )
        if found:
            reads[relative] = found
    return reads


def test_no_module_outside_the_allowed_reads_the_bills_money() -> None:
    offenders = {path: found for path, found in _scan().items() if not _allowed(path)}
    assert offenders == {}, (
        "Read spend through apps.costs.spend (or add the module to ALLOWED with the reason "
        f"it cannot): {offenders}"
    )


def test_every_allowed_file_still_reads_the_bills_money() -> None:
    # A module that stopped reading them leaves the list, so the list stays the truth.
    reads = _scan()
    for key in ALLOWED:
        if not key.endswith("/"):
            assert key in reads, f"{key} no longer reads the bills' money: take it off ALLOWED"


def test_it_catches_each_way_of_reading_the_money() -> None:
    samples = {
        "from apps.billing.models import BillLine": 1,
        "from apps.billing import selectors": 1,
        "import apps.costs.models": 1,
        "from ..models import CostDay": 1,  # relative, from apps.costs.sub.module
        "from ...billing.selectors import cost_totals": 1,
        "rows.aggregate(total=Sum('cost'))": 1,
        "rows.annotate(total=models.Sum(F('bill_lines__cost')))": 1,
        "cursor.execute('SELECT sum(cost) FROM billing_billline')": 1,
        "from apps.billing.models import ChargeCategory, MONEY": 0,
        "rows.aggregate(total=Sum('monthly_saving'))": 0,
    }
    for source, expected in samples.items():
        found = money_reads(source, "apps.costs.sub.module")
        assert len(found) == expected, (source, found)
