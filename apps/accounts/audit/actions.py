"""The actions the audit log records: a code each, with its label in both languages.

The API returns the code and the label in the request's language; the dashboard renders its
own labels from its locale files (frontend/src/locales), keyed by the same codes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Label:
    en: str
    zh_hans: str


SIGN_IN_SUCCEEDED = "sign_in.succeeded"
SIGN_IN_FAILED = "sign_in.failed"
SIGN_IN_LOCKED_OUT = "sign_in.locked_out"
SIGN_OUT = "sign_out"
ORGANIZATION_CREATED = "organization.created"
ORGANIZATION_UPDATED = "organization.updated"
MEMBER_JOINED = "member.joined"
MEMBER_ROLE_CHANGED = "member.role_changed"
MEMBER_REMOVED = "member.removed"
INVITATION_CREATED = "invitation.created"
INVITATION_ACCEPTED = "invitation.accepted"
INVITATION_REVOKED = "invitation.revoked"
API_KEY_CREATED = "api_key.created"
API_KEY_REVOKED = "api_key.revoked"
CLOUD_ACCOUNT_CREATED = "cloud_account.created"
CLOUD_ACCOUNT_UPDATED = "cloud_account.updated"
CLOUD_ACCOUNT_CREDENTIALS_CHANGED = "cloud_account.credentials_changed"
CLOUD_ACCOUNT_ENDPOINT_CHANGED = "cloud_account.endpoint_changed"
EXPORT_DOWNLOADED = "export.downloaded"
ANALYSIS_SETTINGS_UPDATED = "analysis_settings.updated"
RECOMMENDATION_SETTINGS_UPDATED = "recommendation_settings.updated"
ALERT_SETTINGS_UPDATED = "alert_settings.updated"
ALERT_RULE_CREATED = "alert_rule.created"
ALERT_RULE_UPDATED = "alert_rule.updated"
ALERT_RULE_DELETED = "alert_rule.deleted"
ALERT_RECIPIENT_CREATED = "alert_recipient.created"
ALERT_RECIPIENT_DELETED = "alert_recipient.deleted"
BUDGET_CREATED = "budget.created"
BUDGET_UPDATED = "budget.updated"
BUDGET_DELETED = "budget.deleted"
DIGEST_SUBSCRIPTION_CREATED = "digest_subscription.created"
DIGEST_SUBSCRIPTION_UPDATED = "digest_subscription.updated"
DIGEST_SUBSCRIPTION_DELETED = "digest_subscription.deleted"
DIGEST_SUBSCRIPTION_UNSUBSCRIBED = "digest_subscription.unsubscribed"
HOLIDAY_CREATED = "holiday.created"
HOLIDAY_UPDATED = "holiday.updated"
HOLIDAY_DELETED = "holiday.deleted"
PROJECT_UPDATED = "project.updated"
PROJECT_TAG_KEY_CREATED = "project_tag_key.created"
PROJECT_TAG_KEY_DELETED = "project_tag_key.deleted"
AUTOMATION_SETTINGS_UPDATED = "automation_settings.updated"
AUTOMATION_PLAN_CREATED = "automation_plan.created"
AUTOMATION_PLAN_UPDATED = "automation_plan.updated"
AUTOMATION_PLAN_ENDED = "automation_plan.ended"
AUTOMATION_ACTION = "automation_action.done"

ACTIONS: dict[str, Label] = {
    SIGN_IN_SUCCEEDED: Label("Signed in", "登录成功"),
    SIGN_IN_FAILED: Label("Sign-in failed", "登录失败"),
    SIGN_IN_LOCKED_OUT: Label("Sign-in locked out", "登录被锁定"),
    SIGN_OUT: Label("Signed out", "退出登录"),
    ORGANIZATION_CREATED: Label("Created the organization", "创建组织"),
    ORGANIZATION_UPDATED: Label("Changed the organization's settings", "修改组织设置"),
    MEMBER_JOINED: Label("Member joined", "成员加入"),
    MEMBER_ROLE_CHANGED: Label("Changed a member's role", "修改成员角色"),
    MEMBER_REMOVED: Label("Removed a member", "移除成员"),
    INVITATION_CREATED: Label("Sent an invitation", "发出邀请"),
    INVITATION_ACCEPTED: Label("Accepted an invitation", "接受邀请"),
    INVITATION_REVOKED: Label("Revoked an invitation", "撤销邀请"),
    API_KEY_CREATED: Label("Created an API key", "创建 API 密钥"),
    API_KEY_REVOKED: Label("Revoked an API key", "吊销 API 密钥"),
    CLOUD_ACCOUNT_CREATED: Label("Connected a cloud account", "连接云账号"),
    CLOUD_ACCOUNT_UPDATED: Label("Changed a cloud account", "修改云账号"),
    CLOUD_ACCOUNT_CREDENTIALS_CHANGED: Label(
        "Changed a cloud account's credentials", "更换云账号密钥"
    ),
    CLOUD_ACCOUNT_ENDPOINT_CHANGED: Label("Changed a cloud account's endpoint", "修改云账号接入点"),
    EXPORT_DOWNLOADED: Label("Downloaded an export", "下载导出"),
    ANALYSIS_SETTINGS_UPDATED: Label("Changed the phase thresholds", "修改阶段判定阈值"),
    RECOMMENDATION_SETTINGS_UPDATED: Label(
        "Changed the recommendation thresholds", "修改优化建议阈值"
    ),
    ALERT_SETTINGS_UPDATED: Label("Changed the alert settings", "修改告警设置"),
    ALERT_RULE_CREATED: Label("Created an alert rule", "创建告警规则"),
    ALERT_RULE_UPDATED: Label("Changed an alert rule", "修改告警规则"),
    ALERT_RULE_DELETED: Label("Deleted an alert rule", "删除告警规则"),
    ALERT_RECIPIENT_CREATED: Label("Added an alert recipient", "添加告警接收人"),
    ALERT_RECIPIENT_DELETED: Label("Removed an alert recipient", "移除告警接收人"),
    BUDGET_CREATED: Label("Created a budget", "创建预算"),
    BUDGET_UPDATED: Label("Changed a budget", "修改预算"),
    BUDGET_DELETED: Label("Deleted a budget", "删除预算"),
    DIGEST_SUBSCRIPTION_CREATED: Label("Subscribed to a digest", "订阅摘要邮件"),
    DIGEST_SUBSCRIPTION_UPDATED: Label("Changed a digest schedule", "修改摘要邮件计划"),
    DIGEST_SUBSCRIPTION_DELETED: Label("Deleted a digest subscription", "删除摘要邮件订阅"),
    DIGEST_SUBSCRIPTION_UNSUBSCRIBED: Label(
        "Unsubscribed from a digest by its link", "通过链接退订摘要邮件"
    ),
    HOLIDAY_CREATED: Label("Added a holiday", "添加假日"),
    HOLIDAY_UPDATED: Label("Changed a holiday", "修改假日"),
    HOLIDAY_DELETED: Label("Deleted a holiday", "删除假日"),
    PROJECT_UPDATED: Label("Changed a project", "修改项目"),
    PROJECT_TAG_KEY_CREATED: Label("Added a project tag key", "添加项目标签键"),
    PROJECT_TAG_KEY_DELETED: Label("Removed a project tag key", "移除项目标签键"),
    AUTOMATION_SETTINGS_UPDATED: Label("Paused or resumed all automation", "暂停或恢复全部自动化"),
    AUTOMATION_PLAN_CREATED: Label("Automated a recommendation", "自动执行优化建议"),
    AUTOMATION_PLAN_UPDATED: Label("Changed an automation", "修改自动化"),
    AUTOMATION_PLAN_ENDED: Label("Ended an automation", "结束自动化"),
    AUTOMATION_ACTION: Label(
        "Automation stopped, started or skipped an instance", "自动化停止、启动或跳过实例"
    ),
}

# The codes, for the API's enum (config/settings.py names it AuditActionEnum).
ACTION_CODES = list(ACTIONS)


def action_label(code: str, language: str) -> str:
    """The label of ``code`` in ``language`` (a Django language code); the code if unknown."""
    label = ACTIONS.get(code)
    if label is None:
        return code
    return label.zh_hans if language.lower().startswith("zh") else label.en
