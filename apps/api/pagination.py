from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """The one pagination of the API: ``?page=N&page_size=M`` (at most 500 a page)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
