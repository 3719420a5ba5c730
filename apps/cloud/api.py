"""Cloud endpoints: cloud accounts (managers write), projects and instances (read)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, mixins, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from apps.accounts.models import User
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
    WriteCredentialSerializer,
)
from apps.cloud.tasks import dispatch_account
from apps.cloud.write_credentials import READ_ONLY_CREDENTIAL


class ReadOnlyCredential(exceptions.APIException):
    """400 with its own code, so a client can tell "add a write key first" from bad input."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = READ_ONLY_CREDENTIAL


def _actor(request: Request) -> User | None:
    """The signed-in person (an API key's request has none; the audit log names the key)."""
    return request.user if isinstance(request.user, User) else None


def _set_automation(account: CloudAccount, enabled: bool, actor: User | None) -> None:
    try:
        services.cloud_account_set_automation(account=account, enabled=enabled, actor=actor)
    except DjangoValidationError as exc:
        codes = [e.code for errors in exc.error_dict.values() for e in errors]
        if READ_ONLY_CREDENTIAL in codes:
            detail = " ".join(exc.messages)
            raise ReadOnlyCredential(detail=detail, code=READ_ONLY_CREDENTIAL) from None
        raise


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
    # PUT and DELETE only for write-credential/ (the account itself is changed with PATCH).
    http_method_names = ["get", "post", "patch", "put", "delete", "head", "options"]

    @extend_schema(exclude=True)
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if not kwargs.get("partial"):
            raise exceptions.MethodNotAllowed(request.method or "PUT")
        return super().update(request, *args, **kwargs)

    @transaction.atomic
    def perform_create(self, serializer: BaseSerializer[CloudAccount]) -> None:
        fields = dict(serializer.validated_data)
        automation = fields.pop("automation_enabled", None)
        account = services.cloud_account_create(organization=self.tenant.organization, **fields)
        if automation:
            # A new account has only its read key: refused (400 read_only_credential), and
            # the account is not created either (the transaction rolls back).
            _set_automation(account, automation, _actor(self.request))
        transaction.on_commit(lambda: dispatch_account.delay(account.pk))
        serializer.instance = account

    @transaction.atomic
    def perform_update(self, serializer: BaseSerializer[CloudAccount]) -> None:
        assert serializer.instance is not None, "an update always has its instance"
        changes = dict(serializer.validated_data)
        automation = changes.pop("automation_enabled", None)
        account = serializer.instance
        if changes:
            account = services.cloud_account_update(account=account, **changes)
            transaction.on_commit(lambda: dispatch_account.delay(account.pk))
        if automation is not None:
            _set_automation(account, automation, _actor(self.request))
        serializer.instance = CloudAccount.objects.prefetch_related("sync_states").get(
            pk=account.pk
        )

    @extend_schema(
        methods=["PUT"], request=WriteCredentialSerializer, responses=CloudAccountSerializer
    )
    @extend_schema(methods=["DELETE"], request=None, responses=CloudAccountSerializer)
    @action(detail=True, methods=["put", "delete"], url_path="write-credential")
    def write_credential(self, request: Request, pk: str | None = None) -> Response:
        """PUT: test a write key (StopInstances/StartInstances on an id that cannot exist must
        answer "not found") and store it encrypted; a key that may not stop and start is a
        400 naming the permission, and nothing is saved. DELETE: forget the write key and turn
        automation off."""
        account = self.get_object()
        if request.method == "DELETE":
            account = services.cloud_account_remove_write_credential(
                account=account, actor=_actor(request)
            )
        else:
            serializer = WriteCredentialSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            account = services.cloud_account_set_write_credential(
                account=account, actor=_actor(request), **serializer.validated_data
            )
        fresh = CloudAccount.objects.prefetch_related("sync_states").get(pk=account.pk)
        return Response(CloudAccountSerializer(fresh, context=self.get_serializer_context()).data)

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
