"""Tag 2018-08-13: DescribeResourceTagsByResourceIds for CVM instances."""

from __future__ import annotations

import hashlib
from typing import Any

from ..constants import TAG_DEFAULT_LIMIT, TAG_MAX_RESOURCE_IDS
from ..errors import ApiError, invalid_value
from .params import RequestContext, check, paging, string_list


def _md5(text: str) -> str:
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def describe_resource_tags_by_resource_ids(
    ctx: RequestContext, params: dict[str, Any]
) -> dict[str, Any]:
    """Custom tags of the given instances in ``ResourceRegion`` (Offset a multiple of Limit)."""
    check(
        params,
        {
            "ServiceType": str,
            "ResourcePrefix": str,
            "ResourceIds": list,
            "ResourceRegion": str,
            "Offset": int,
            "Limit": int,
            "Category": str,
        },
        required=("ServiceType", "ResourcePrefix", "ResourceIds", "ResourceRegion"),
    )
    offset, limit = paging(params, TAG_DEFAULT_LIMIT, 100, "InvalidParameterValue.LimitExceeded")
    if offset % limit:
        raise invalid_value("Offset", "must be a multiple of Limit")
    ids = string_list(params["ResourceIds"], "ResourceIds")
    if len(ids) > TAG_MAX_RESOURCE_IDS:
        raise ApiError(
            "InvalidParameterValue.LimitExceeded",
            f"At most {TAG_MAX_RESOURCE_IDS} `ResourceIds` are allowed.",
        )
    if params.get("Category", "Custom") not in ("Custom", "System", "All"):
        raise invalid_value("Category", "must be Custom, System or All")
    tags: list[dict[str, str]] = []
    if (params["ServiceType"], params["ResourcePrefix"]) == ("cvm", "instance") and params.get(
        "Category", "Custom"
    ) != "System":
        live = {inst.instance_id: inst for inst in ctx.cloud.instances(ctx.now)}
        for resource_id in ids:
            inst = live.get(resource_id)
            if inst is None or inst.region != params["ResourceRegion"]:
                continue
            tags.extend(
                {
                    "ResourceId": resource_id,
                    "TagKey": key,
                    "TagValue": value,
                    "TagKeyMd5": _md5(key),
                    "TagValueMd5": _md5(value),
                    "ServiceType": "cvm",
                    "Category": "Custom",
                }
                for key, value in inst.tags
            )
    return {
        "TotalCount": len(tags),
        "Offset": offset,
        "Limit": limit,
        "Tags": tags[offset : offset + limit],
    }
