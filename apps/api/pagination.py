"""The API's two paginations.

- ``PageNumberPagination`` (the default): ``?page=N&page_size=M`` with a ``count``; what the
  dashboard's tables use (they jump to a page and show the total).
- ``CursorPagination``: ``?cursor=...&page_size=M`` with opaque ``next``/``previous`` links,
  for large lists read from start to end (exports, time series, a script walking a year of
  rows). It needs no ``COUNT(*)`` and its pages stay stable while rows are added, which page
  numbers do not. A view opts in with ``pagination_class = CursorPagination`` and an
  ``ordering`` on a unique, immutable key (the default: newest first by id).
"""

from typing import Any

from rest_framework import pagination, serializers
from rest_framework.request import Request


def _strict_page_size(request: Request, param: str, default: int, maximum: int) -> int:
    """``page_size`` as asked, or a 400 naming it: DRF would silently use the default for
    ``page_size=abc`` and clamp ``page_size=9999``, so a script would not learn its mistake."""
    raw = request.query_params.get(param)
    if raw is None:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= maximum:
        raise serializers.ValidationError({param: [f"A whole number from 1 to {maximum}."]})
    return int(raw)


def _bounded(parameters: list[dict[str, Any]], name: str, maximum: int) -> list[dict[str, Any]]:
    for parameter in parameters:
        if parameter["name"] == name:
            parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": maximum}
    return parameters


class PageNumberPagination(pagination.PageNumberPagination):
    """``?page=N&page_size=M`` (at most 500 a page)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Request) -> int:
        return _strict_page_size(request, "page_size", self.page_size, self.max_page_size)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = _bounded(super().get_schema_operation_parameters(view), "page", 10**9)
        return _bounded(parameters, "page_size", self.max_page_size)


class CursorPagination(pagination.CursorPagination):
    """``?cursor=<opaque>&page_size=M`` (at most 1,000 a page), ordered by ``ordering``."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000
    ordering = "-id"

    def get_page_size(self, request: Request) -> int:
        return _strict_page_size(request, "page_size", self.page_size, self.max_page_size)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return _bounded(
            super().get_schema_operation_parameters(view), "page_size", self.max_page_size
        )
