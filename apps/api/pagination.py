"""The API's two paginations.

- ``PageNumberPagination`` (the default): ``?page=N&page_size=M`` with a ``count``; what the
  dashboard's tables use (they jump to a page and show the total).
- ``CursorPagination``: ``?cursor=...&page_size=M`` with opaque ``next``/``previous`` links,
  for large lists read from start to end (exports, time series, a script walking a year of
  rows). It needs no ``COUNT(*)`` and its pages stay stable while rows are added, which page
  numbers do not. A view opts in with ``pagination_class = CursorPagination`` and an
  ``ordering`` on a unique, immutable key (the default: newest first by id).
"""

from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """``?page=N&page_size=M`` (at most 500 a page)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


class CursorPagination(pagination.CursorPagination):
    """``?cursor=<opaque>&page_size=M`` (at most 1,000 a page), ordered by ``ordering``."""

    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000
    ordering = "-id"
