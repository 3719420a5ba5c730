"""The audit log in the API: each entry with its action's code and label, actor, target."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.accounts.audit.actions import ACTION_CODES, action_label
from apps.accounts.audit.models import ActorType, AuditEntry
from apps.api.serializers import StrictSerializer


class AuditActorSerializer(serializers.Serializer):
    type = serializers.ChoiceField(
        choices=ActorType.choices,
        help_text="user: a person; api_key: an API key; anonymous: nobody signed in (a failed "
        "sign-in, an unsubscribe link); system: GPU Ledger itself (a scheduled task).",
    )
    id = serializers.IntegerField(
        allow_null=True, help_text="The person's or the API key's id; null for the others."
    )
    display = serializers.CharField(
        allow_blank=True,
        help_text="As they were named then: an e-mail address, an API key's name and prefix, "
        "or the address typed at a failed sign-in.",
    )


class AuditTargetSerializer(serializers.Serializer):
    type = serializers.CharField(
        help_text="What was acted on: membership, invitation, api_key, budget, user, export, ..."
    )
    id = serializers.CharField(allow_blank=True)
    # DRF's metaclass moves declared fields out of the class body: ``label`` shadows nothing at
    # run time; only the type checker sees a clash with Field.label.
    label = serializers.CharField(  # type: ignore[assignment]
        allow_blank=True, help_text="Its name then."
    )


_ANY: dict[str, Any] = {}
_CHANGE = {
    "type": "object",
    "properties": {"old": _ANY, "new": _ANY},
    "required": ["old", "new"],
    "description": "The value before and after (null: none, or back to the default).",
}


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "changes": {
                "type": "object",
                "additionalProperties": _CHANGE,
                "description": "Field -> its old and new value.",
            },
            "secrets_changed": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The secrets that changed (their values are never recorded).",
            },
            "values": {
                "type": "object",
                "additionalProperties": True,
                "description": "The object's settings when it was created or deleted.",
            },
        },
        # What else an action records: the e-mail a sign-in typed, an export's period, ...
        "additionalProperties": True,
    }
)
class AuditDetailsField(serializers.DictField):
    """What an entry recorded; its known parts are stated in the schema."""


class AuditEntrySerializer(serializers.ModelSerializer):
    action = serializers.ChoiceField(choices=ACTION_CODES)
    action_label = serializers.SerializerMethodField(
        help_text="The action in the request's language (Accept-Language, else the person's)."
    )
    actor = serializers.SerializerMethodField()
    target = serializers.SerializerMethodField()
    details = AuditDetailsField(
        help_text="What changed (`changes`: field -> old and new), never a secret's value "
        "(`secrets_changed` names the secrets that changed)."
    )

    class Meta:
        model = AuditEntry
        fields = [
            "id",
            "at",
            "action",
            "action_label",
            "actor",
            "target",
            "details",
            "client_address",
            "user_agent",
        ]

    def get_action_label(self, entry: AuditEntry) -> str:
        return action_label(entry.action, self.context.get("language", "en"))

    @staticmethod
    def _actor_id(entry: AuditEntry) -> int | None:
        if entry.actor_type == ActorType.USER:
            return entry.actor_user_id
        if entry.actor_type == ActorType.API_KEY:
            return entry.actor_api_key_id
        return None

    @extend_schema_field(AuditActorSerializer)
    def get_actor(self, entry: AuditEntry) -> dict[str, Any]:
        return {
            "type": entry.actor_type,
            "id": self._actor_id(entry),
            "display": entry.actor_display,
        }

    @extend_schema_field(AuditTargetSerializer(allow_null=True))
    def get_target(self, entry: AuditEntry) -> dict[str, Any] | None:
        if not entry.target_type:
            return None
        return {"type": entry.target_type, "id": entry.target_id, "label": entry.target_label}


class AuditQuerySerializer(StrictSerializer):
    action = serializers.ListField(
        child=serializers.ChoiceField(choices=ACTION_CODES), required=False
    )
    actor = serializers.CharField(required=False, max_length=254)
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)
    page = serializers.IntegerField(required=False, min_value=1)
    page_size = serializers.IntegerField(required=False, min_value=1)
