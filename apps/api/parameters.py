"""Query parameters and path ids as the OpenAPI schema states them, checked before any view.

One rule for every operation of the API, whichever view answers it:

- a query parameter the operation does not document is a 400 naming it, so a typo
  (``?projcet=``) or a wish (``?organization=``) never silently widens an answer;
- an integer parameter, in the query or the path (``/instances/{id}``), outside the bounds its
  schema states (at most a 64-bit integer, the widest column behind any id) is a 400 naming it,
  not an overflow in the database driver.

The schema (drf-spectacular's, the one /api/v1/schema/ serves) is the one owner of both: what it
documents is what the API accepts, so the documentation and the checks cannot drift apart. Every
other check of a value (types, choices, periods) stays with the view that reads it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict

from apps.api.exceptions import invalid_body

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
# Digits of the widest 64-bit integer: longer numbers are out of range without parsing them
# (Python refuses to parse more than 4,300 digits at all).
_INT64_DIGITS = 19
_INTEGER = re.compile(r"^\s*[-+]?(\d+)\s*$", re.ASCII)
_PATH_VARIABLE = re.compile(r"\{(\w+)\}")
# A documented family of names, e.g. ``tag:<key>`` of the cost report.
_NAME_TEMPLATE = re.compile(r"<\w+>")


def bound_integer_schema(schema: dict[str, Any]) -> None:
    """State a 64-bit range on an integer parameter's schema (or its items) lacking one."""
    target = schema.get("items", schema) if schema.get("type") == "array" else schema
    if target.get("type") == "integer":
        target.setdefault("minimum", INT64_MIN)
        target.setdefault("maximum", INT64_MAX)


@dataclasses.dataclass(frozen=True)
class Operation:
    """What one operation of the schema takes: its path and its documented query parameters."""

    path: re.Pattern[str]
    path_parameters: Mapping[str, Mapping[str, Any]]
    query_parameters: Mapping[str, Mapping[str, Any]]
    # Documented families of names (``tag:<key>``): the name, its pattern, its schema.
    query_families: tuple[tuple[str, re.Pattern[str], Mapping[str, Any]], ...]

    def query_schema(self, name: str) -> Mapping[str, Any] | None:
        if name in self.query_parameters:
            return self.query_parameters[name]
        return next((s for _, family, s in self.query_families if family.match(name)), None)

    def query_names(self) -> list[str]:
        return sorted([*self.query_parameters, *(name for name, _, _ in self.query_families)])


def _path_pattern(path: str) -> re.Pattern[str]:
    parts = _PATH_VARIABLE.split(path)
    # split() alternates literal text and variable names.
    regex = "".join(
        re.escape(part) if index % 2 == 0 else f"(?P<{part}>[^/]+)"
        for index, part in enumerate(parts)
    )
    return re.compile(f"^{regex}$")


def _operation(path: str, operation: Mapping[str, Any]) -> Operation:
    parameters = operation.get("parameters", [])
    query = {p["name"]: p.get("schema", {}) for p in parameters if p["in"] == "query"}
    families = tuple(
        (
            name,
            re.compile("^" + ".+".join(map(re.escape, _NAME_TEMPLATE.split(name))) + "$"),
            schema,
        )
        for name, schema in query.items()
        if _NAME_TEMPLATE.search(name)
    )
    return Operation(
        path=_path_pattern(path),
        path_parameters={p["name"]: p.get("schema", {}) for p in parameters if p["in"] == "path"},
        query_parameters={name: s for name, s in query.items() if not _NAME_TEMPLATE.search(name)},
        query_families=families,
    )


def operations_by_method(schema: Mapping[str, Any]) -> dict[str, list[Operation]]:
    """The schema's operations per HTTP method, literal paths before templated ones (so
    ``/alerts/settings`` is not read as ``/alerts/{id}``)."""
    found: dict[str, list[Operation]] = {}
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            found.setdefault(method.upper(), []).append(_operation(path, operation))
    for operations in found.values():
        operations.sort(key=lambda operation: operation.path.groups)
    return found


@functools.cache
def _served_operations() -> dict[str, list[Operation]]:
    # Generated once per process, on the first API request (under a second), from the views.
    from drf_spectacular.generators import SchemaGenerator

    return operations_by_method(SchemaGenerator().get_schema(request=None, public=True))


def _integer_problem(schema: Mapping[str, Any], value: str) -> str | None:
    """Why ``value`` is out of an integer schema's bounds, or None (in bounds, or not an integer
    at all: the view that reads it says what it expects)."""
    target = schema.get("items", schema) if schema.get("type") == "array" else schema
    match = _INTEGER.match(value)
    if target.get("type") != "integer" or match is None:
        return None
    low = max(int(target.get("minimum", INT64_MIN)), INT64_MIN)
    high = min(int(target.get("maximum", INT64_MAX)), INT64_MAX)
    digits = match.group(1).lstrip("0")
    if len(digits) <= _INT64_DIGITS and low <= int(value) <= high:
        return None
    return f"A whole number from {low} to {high}."


def parameter_problems(
    operations: Mapping[str, list[Operation]], method: str, path: str, query: QueryDict
) -> dict[str, list[str]]:
    """Each parameter of the request that the schema's operation does not take as sent."""
    method = "GET" if method == "HEAD" else method
    for operation in operations.get(method, []):
        match = operation.path.match(path)
        if match is not None:
            break
    else:
        # Not an operation of the schema (OPTIONS, the schema itself): nothing to check here.
        return {}
    problems: dict[str, list[str]] = {}
    for name, value in match.groupdict().items():
        problem = _integer_problem(operation.path_parameters.get(name, {}), value)
        if problem:
            problems[name] = [problem]
    for name in query:
        schema = operation.query_schema(name)
        if schema is None:
            known = ", ".join(operation.query_names()) or "none"
            problems[name] = [f"Unknown query parameter; this operation takes: {known}."]
            continue
        for value in query.getlist(name):
            problem = _integer_problem(schema, value)
            if problem:
                problems[name] = [problem]
    return problems


class ParameterContractMiddleware:
    """A 400 in the API's error format for an /api/ request whose query or path the schema's
    operation does not take (see the module's docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        if not request.path_info.startswith("/api/"):
            return None
        problems = parameter_problems(
            _served_operations(), request.method or "GET", request.path_info, request.GET
        )
        if not problems:
            return None
        return JsonResponse(invalid_body(problems), status=400)
