"""The filter backend of every list: django-filter's, with empty values of typed filters refused.

django-filter reads ``?project=`` or ``?charge_type=`` as "no filter". The schema states those
parameters as an integer or one of an enum, which an empty string is not, so a client that
sends one has a bug worth hearing about: a 400 naming the parameter, like any other bad value.
Free-text filters (``region``, ``state``) keep accepting an empty string, as their schema does.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

# Filters whose schema type leaves no room for an empty string.
_TYPED = (
    django_filters.ChoiceFilter,
    django_filters.ModelChoiceFilter,
    django_filters.NumberFilter,
)


class StrictFilterBackend(DjangoFilterBackend):
    def filter_queryset(
        self, request: Request, queryset: QuerySet[Any], view: Any
    ) -> QuerySet[Any]:
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None:
            empty = {
                name: ["Give a value, or leave the parameter out."]
                for name, item in filterset_class.base_filters.items()
                if isinstance(item, _TYPED)
                and name in request.query_params
                and not request.query_params[name].strip()
            }
            if empty:
                raise ValidationError(empty)
        return super().filter_queryset(request, queryset, view)
