"""Cloud endpoints: cloud accounts (managers write), projects and instances (read)."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from apps.accounts.roles import MANAGER_ROLES
from apps.api.viewsets import OrganizationScopedViewSet
from apps.cloud import services
from apps.cloud.models import CloudAccount, Instance, Project, ProjectTagKey
from apps.cloud.projects import project_tag_key_create, project_tag_key_delete, project_update
from apps.cloud.serializers import (
    CloudAccountSerializer,
    ConnectionTestResultSerializer,
    ConnectionTestSerializer,
    InstanceSerializer,
    ProjectSerializer,
    ProjectTagKeySerializer,
)
from apps.cloud.tasks import dispatch_account


class CloudAccountViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    OrganizationScopedViewSet,
):
    queryset = CloudAccount.objects.prefetch_related("sync_states").order_by("name")
    serializer_class = CloudAccountSerializer
    write_roles = MANAGER_ROLES
    http_method_names = ["get", "post", "patch", "head", "options"]

    def perform_create(self, serializer: BaseSerializer[CloudAccount]) -> None:
        account = services.cloud_account_create(
            organization=self.tenant.organization, **serializer.validated_data
        )
        transaction.on_commit(lambda: dispatch_account.delay(account.pk))
        serializer.instance = account

    def perform_update(self, serializer: BaseSerializer[CloudAccount]) -> None:
        assert serializer.instance is not None, "an update always has its instance"
        account = services.cloud_account_update(
            account=serializer.instance, **serializer.validated_data
        )
        transaction.on_commit(lambda: dispatch_account.delay(account.pk))
        serializer.instance = CloudAccount.objects.prefetch_related("sync_states").get(
            pk=account.pk
        )

    @extend_schema(request=ConnectionTestSerializer, responses=ConnectionTestResultSerializer)
    @action(detail=False, methods=["post"], url_path="test-connection")
    def test_connection(self, request: Request) -> Response:
        """Try credentials before saving them: 200 with ``ok`` and Tencent Cloud's plain
        message. Nothing is stored, whatever the outcome."""
        serializer = ConnectionTestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        data.pop("name", None)
        result = services.cloud_account_test_connection(
            organization=self.tenant.organization, **data
        )
        return Response(ConnectionTestResultSerializer(result).data)

    @action(detail=True, methods=["post"])
    def sync(self, request: Request, pk: str | None = None) -> Response:
        """Make every kind of sync of this account due now."""
        account = self.get_object()
        services.cloud_account_sync_now(account=account)
        transaction.on_commit(lambda: dispatch_account.delay(account.pk))
        return Response(status=status.HTTP_202_ACCEPTED)


class ProjectViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    OrganizationScopedViewSet,
):
    """Projects; PATCH renames one or sets the tag values that land in it (merging)."""

    queryset = Project.objects.order_by("name")
    serializer_class = ProjectSerializer
    http_method_names = ["get", "patch", "head", "options"]

    def perform_update(self, serializer: BaseSerializer[Project]) -> None:
        assert serializer.instance is not None, "an update always has its instance"
        serializer.instance = project_update(
            project=serializer.instance, **serializer.validated_data
        )


class ProjectTagKeyViewSet(
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    OrganizationScopedViewSet,
):
    """The tag keys whose values name projects (default: ``project``); first position wins."""

    queryset = ProjectTagKey.objects.order_by("position", "id")
    serializer_class = ProjectTagKeySerializer
    write_roles = MANAGER_ROLES

    def perform_create(self, serializer: BaseSerializer[ProjectTagKey]) -> None:
        serializer.instance = project_tag_key_create(
            organization=self.tenant.organization, **serializer.validated_data
        )

    def perform_destroy(self, instance: ProjectTagKey) -> None:
        project_tag_key_delete(tag_key=instance)


class InstanceViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, OrganizationScopedViewSet):
    queryset = Instance.objects.select_related("project").order_by("name", "provider_id")
    serializer_class = InstanceSerializer
    filterset_fields = ["region", "charge_type", "state", "project"]
