"""``POST /api/v1/ingest/gpu-samples``: the agent's batches (ingest-scoped API keys only)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import ApiKey
from apps.api.permissions import IsIngestKey
from apps.api.throttling import IngestRateThrottle
from apps.cloud.models import Instance
from apps.metrics.agent.serializers import MAX_BODY_BYTES, IngestBatchSerializer, flat_errors
from apps.metrics.agent.services import agent_batch_ingest
from apps.metrics.services import raw_retention_days


class IngestResultSerializer(serializers.Serializer):
    instance_id = serializers.CharField()
    samples_received = serializers.IntegerField()
    samples_stored = serializers.IntegerField(
        help_text="New points; a resent one is not stored twice."
    )
    counters_received = serializers.IntegerField()
    counters_stored = serializers.IntegerField()


class BatchTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


class IngestGpuSamplesView(APIView):
    """One agent batch of one instance: its GPU samples and cumulative work counters.

    Validated whole: a 400 names every bad field (``samples[3].util_pct``) and stores nothing.
    Idempotent: a point already stored (same instance, card or counter, and timestamp) is
    skipped, so a batch resent after a lost answer changes nothing. The instance is the
    key's organization's ``ins-...`` id; any other is a 404.
    """

    # The only view an ingest key may reach (apps/api/authentication.py).
    accepts_ingest_keys = True
    permission_classes = [IsIngestKey]
    throttle_classes = [IngestRateThrottle]

    @extend_schema(
        # Security requirement objects, as drf-spectacular uses them (its hint says str).
        auth=[{"apiKey": []}],  # type: ignore[list-item]
        request=IngestBatchSerializer,
        responses={
            200: IngestResultSerializer,
            413: OpenApiResponse(description=f"The body is over {MAX_BODY_BYTES:,} bytes."),
        },
    )
    def post(self, request: Request) -> Response:
        # Before the body is read: the parser would buffer all of it.
        if int(request.META.get("CONTENT_LENGTH") or 0) > MAX_BODY_BYTES:
            raise BatchTooLarge(f"A batch is at most {MAX_BODY_BYTES:,} bytes; send smaller ones.")
        assert isinstance(request.auth, ApiKey)
        now = timezone.now()
        serializer = IngestBatchSerializer(
            data=request.data, context={"now": now, "retention_days": raw_retention_days()}
        )
        if not serializer.is_valid():
            raise exceptions.ValidationError(flat_errors(serializer.errors))
        try:
            result = agent_batch_ingest(
                organization=request.auth.organization, batch=serializer.validated_data, now=now
            )
        except Instance.DoesNotExist:
            raise exceptions.NotFound(
                f"No instance {serializer.validated_data['instance_id']} in this organization "
                "(a new instance appears after the next inventory sync)."
            ) from None
        return Response(IngestResultSerializer(result).data)
