/**
 * Friendly names for the API's types. Every shape comes from `schema.gen.ts`, which `make types` generates
 * from the Django API's OpenAPI schema; nothing here describes a payload by hand.
 */
import type { components, operations } from './schema.gen';

type Schemas = components['schemas'];

/**
 * A response body as the API renders it. DRF renders every readable field of a serializer, but
 * drf-spectacular marks a writable field that has a default (Instance.zone, Membership.role, the page's
 * `next`) as optional in the response schema too, because it only asks whether a client must send it.
 * Removing that `?` (deeply) is the only correction made; what the schema says is nullable stays nullable.
 */
export type AsRendered<T> = T extends readonly (infer Item)[]
  ? AsRendered<Item>[]
  : T extends object
    ? { [Key in keyof T]-?: AsRendered<T[Key]> }
    : T;

/** The query parameters an operation accepts. */
type QueryOf<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>;

/* ---------- accounts ---------- */

export type Role = Schemas['RoleEnum'];
export type Currency = Schemas['CurrencyEnum'];
export type Scope = Schemas['ScopeEnum'];
/** The dashboard language a person chose, as the API spells it (`zh-hans`, not the browser's `zh-CN`). */
export type Language = Schemas['LanguageEnum'];

export type Org = AsRendered<Schemas['Organization']>;
export type Me = AsRendered<Schemas['Me']>;
export type UserSummary = AsRendered<Schemas['User']>;
export type Member = AsRendered<Schemas['Membership']>;
export type Invitation = AsRendered<Schemas['Invitation']>;
export type ApiKey = AsRendered<Schemas['ApiKey']>;
/** Carries the full secret `key`, returned once, on creation only. */
export type CreatedApiKey = AsRendered<Schemas['ApiKeyCreated']>;
/** Signed out: token, name and password (creates the account); signed in: the token only. */
export type InvitationAcceptInput = Schemas['InvitationAcceptRequest'];
/** Self-service sign-up: the person and their organization (they become its owner). */
export type SignupInput = Schemas['SignupRequest'];
/** An IANA time zone the API takes (the schema lists them: those of the server's tzdata). */
export type Timezone = Schemas['TimezoneEnum'];
/** The answer to a sign-up or a resent link: where the confirmation link went. */
export type SignupCreated = AsRendered<Schemas['SignupCreated']>;
/** The one-time set-password link of an owner created with `manage.py create_organization`. */
export type SetPasswordInput = Schemas['SetPasswordRequest'];

/**
 * One entry of the organization's audit log (owners and admins read it). Its `details` keep their optional
 * parts optional: an entry records `changes`, `secrets_changed` or `values` only where they apply.
 */
export type AuditEntry = Omit<AsRendered<Schemas['AuditEntry']>, 'details'> & {
  details: Schemas['AuditEntry']['details'];
};
export type AuditAction = Schemas['AuditActionEnum'];
export type AuditActorType = Schemas['AuditActorTypeEnum'];
/** The audit log's filters; `since`/`until` are ISO instants (`until` exclusive). */
export interface AuditFilters {
  action?: AuditAction;
  actor?: string;
  since?: string;
  until?: string;
}

/** A page of a list endpoint; every list has the same envelope (PaginatedProjectList stands for all). */
export type Page<T> = Omit<AsRendered<Schemas['PaginatedProjectList']>, 'results'> & { results: T[] };

/* ---------- cloud accounts ---------- */

export type CloudSite = Schemas['SiteEnum'];
export type EndpointScheme = Schemas['EndpointSchemeEnum'];
export type CloudAccountStatus = Schemas['CloudAccountStatusEnum'];
export type SyncKind = Schemas['SyncStateKindEnum'];
export type SyncStatus = AsRendered<Schemas['SyncState']>;
/** The last (or current) run of one kind of sync; saved every few seconds while it runs. */
export type SyncRun = AsRendered<Schemas['SyncRun']>;
/** The connection fields of the cloud-account form, tried without saving anything. */
export type ConnectionTestInput = Schemas['ConnectionTestRequest'];
export type ConnectionTestResult = AsRendered<Schemas['ConnectionTestResult']>;
export type CloudAccount = AsRendered<Schemas['CloudAccount']>;
/** What the connect form sends. The SecretKey is write-only: sent on create (and on replace), never returned. */
export type CloudAccountInput = Schemas['CloudAccountRequest'];
/** A region the API takes (apps/cloud/regions.py); the schema lists them. */
export type TencentRegion = Schemas['RegionsEnum'];
/** An edit sends only the changed fields; without secret_key the stored SecretKey is kept. */
export type CloudAccountChanges = Schemas['PatchedCloudAccountRequest'];

/* ---------- inventory ---------- */

export type Project = AsRendered<Schemas['Project']>;
/** A project edit sends only what changes: the name, and/or every tag value that should land in it. */
export type ProjectChanges = Schemas['PatchedProjectRequest'];
export type ProjectTagKey = AsRendered<Schemas['ProjectTagKey']>;
/** `position` orders the keys (lowest first); the first key an instance carries names its project. */
export type ProjectTagKeyInput = Schemas['ProjectTagKeyRequest'];
export type ChargeType = Schemas['ChargeTypeEnum'];
/**
 * `project` is the project's name, or null when no tag rule matched (Unallocated). The schema says a plain
 * string: InstanceSerializer's read-only SlugRelatedField lacks `allow_null=True`, though the field is a
 * nullable foreign key and DRF renders null. The only field the UI corrects against the schema; drop the
 * correction once the serializer says `allow_null=True` and `make types` has run.
 */
export type Instance = Omit<AsRendered<Schemas['Instance']>, 'project'> & { project: string | null };
/**
 * The instance list's filters: the API's parameter names, with the values as text, as the page's URL holds
 * them and the query string sends them (an unknown region or project from a link is still sent as is).
 */
export type InstanceFilters = { [Name in Exclude<keyof QueryOf<'v1_instances_list'>, 'page' | 'page_size'>]?: string };

/* ---------- utilization analysis: phases, profiles, waste ---------- */

export type SummaryGroupBy = NonNullable<QueryOf<'v1_analysis_summary_retrieve'>['group_by']>;
/** A period of the analysis endpoints: ISO dates or date-times, the end exclusive. */
export type Period = QueryOf<'v1_instances_phases_retrieve'>;

export type Phase = Schemas['PhaseEnum'];
/** Where an instance's money comes from: its bills, the list price (an estimate), or nowhere. */
export type CostSource = Schemas['CostSourceEnum'];
/** Minutes, GPU-hours and money (decimal strings; the money null when unpriced) of one phase. */
export type PhaseFigures = AsRendered<Schemas['PhaseFigures']>;
/** `GET /instances/{id}/phases`: one instance's phase segments and per-phase money over a period. */
export type InstancePhases = AsRendered<Schemas['InstancePhases']>;
export type PhaseSegment = AsRendered<Schemas['Segment']>;
/** `GET /instances/{id}/profile`: the hour-of-week utilization profile and its off-window. */
export type InstanceProfile = AsRendered<Schemas['InstanceProfile']>;
export type OffWindow = AsRendered<Schemas['OffWindow']>;
export type OffWindowRun = AsRendered<Schemas['OffWindowRun']>;
/** 7 rows (Monday first) x 24 hours. */
export type WeekGrid = NonNullable<InstanceProfile['median_pct']>;
export type WasteTotals = AsRendered<Schemas['SummaryTotals']>;
export type NoDataReason = Schemas['NoDataReasonEnum'];
export type NoData = AsRendered<Schemas['NoData']>;
/** Why spend has no project: no project tag, the tag with an empty value, a value no project takes. */
export type UnallocatedReason = Schemas['ReasonEnum'];
export type UnallocatedReasonWaste = AsRendered<Schemas['UnallocatedReasonWaste']>;
export type ProjectWaste = AsRendered<Schemas['ProjectWaste']>;
/**
 * `GET /analysis/summary`. `groups` comes only with group_by=project: it stays optional (the API leaves it
 * out, which AsRendered's rule about defaulted fields does not cover).
 */
export type AnalysisSummary = Omit<AsRendered<Schemas['AnalysisSummary']>, 'groups'> & { groups?: ProjectWaste[] };

/* ---------- costs and utilization ---------- */

export type CostReport = AsRendered<Schemas['CostReport']>;
export type CostGroup = AsRendered<Schemas['CostGroup']>;
export type MonthToDate = AsRendered<Schemas['MonthToDate']>;
export type Utilization = AsRendered<Schemas['Utilization']>;
export type Usage = AsRendered<Schemas['Usage']>;
export type HourOfWeek = AsRendered<Schemas['HourOfWeek']>;
export type HourOfWeekCell = AsRendered<Schemas['HourOfWeekCell']>;
/** An instance's utilization curve at the resolution the API chose for the range. */
export type Timeseries = AsRendered<Schemas['Timeseries']>;

/* ---------- recommendations ---------- */

export type RecommendationKind = Schemas['RecommendationKindEnum'];
export type RecommendationStatus = Schemas['RecommendationStatusEnum'];
/** accept, dismiss (a reason required), snooze (until a future moment), reopen. */
export type RecommendationActionName = Schemas['ActionEnum'];
export type RecommendationActionInput = Schemas['ActionInputRequest'];
/** One recommendation as lists show it: money, confidence and risk, without evidence or history. */
export type Recommendation = AsRendered<Schemas['Recommendation']>;
/** One recommendation with its evidence, the action to take, its history and (accepted) realised saving. */
export type RecommendationDetail = AsRendered<Schemas['RecommendationDetail']>;
export type RecommendationEvent = AsRendered<Schemas['Event']>;
export type RecommendationRealised = AsRendered<Schemas['Realised']>;
export type RecommendationWindow = AsRendered<Schemas['Window']>;
/** Monthly savings summed by kind and by project (one row per currency). */
export type RecommendationTotals = AsRendered<Schemas['Totals']>;
export type RecommendationTotal = AsRendered<Schemas['Total']>;
/** The organization's threshold overrides and RI prices, with `fields` describing every threshold. */
export type RecommendationSettings = AsRendered<Schemas['Settings']>;
/** One threshold: its rule (the group), type, default, the organization's override (`value`) and help. */
export type ThresholdField = AsRendered<Schemas['ThresholdField']>;
export type ThresholdGroup = Schemas['ThresholdRuleEnum'];
export type ReservedPrice = AsRendered<Schemas['ReservedPrice']>;
/** A PATCH: the overrides to change (null drops one), or the whole RI price table. */
export type RecommendationSettingsChanges = Schemas['PatchedSettingsRequest'];
/** The list's filters as the query string sends them (one kind and one status at a time from this UI). */
export interface RecommendationFilters {
  kind?: RecommendationKind;
  status?: RecommendationStatus;
  project?: number;
  instance?: number;
  min_saving?: string;
  ordering?: NonNullable<QueryOf<'v1_recommendations_list'>['ordering']>;
}
/* ---------- digests, exports, budgets and alerts ---------- */

export type DigestFrequency = Schemas['FrequencyEnum'];
/** One's own digest: `projects` empty means the whole organization; `timezone` blank means the organization's. */
export type DigestSubscription = AsRendered<Schemas['DigestSubscription']>;
export type DigestSubscriptionInput = Schemas['DigestSubscriptionRequest'];
export type DigestDelivery = AsRendered<Schemas['DigestDelivery']>;
/** The next digest rendered now: `images` maps each Content-ID of the HTML to its PNG as a data: URL. */
export type DigestPreview = AsRendered<Schemas['DigestPreview']>;
export type Holiday = AsRendered<Schemas['Holiday']>;
export type HolidayInput = Schemas['HolidayRequest'];
export type Budget = AsRendered<Schemas['Budget']>;
export type BudgetInput = Schemas['BudgetRequest'];
export type BudgetStatus = AsRendered<Schemas['BudgetStatus']>;
export type ThresholdMetric = Schemas['MetricEnum'];
export type ThresholdComparison = Schemas['ComparisonEnum'];
export type ThresholdRule = AsRendered<Schemas['ThresholdRule']>;
export type ThresholdRuleInput = Schemas['ThresholdRuleRequest'];
export type AlertRecipient = AsRendered<Schemas['AlertRecipient']>;
export type AlertRecipientInput = Schemas['AlertRecipientRequest'];
export type AlertEvent = AsRendered<Schemas['AlertEvent']>;
export type AlertKind = Schemas['AlertEventKindEnum'];
export type AlertSettings = AsRendered<Schemas['AlertSettings']>;
/** Only the changed fields; the webhook secret is write-only (sent to replace it, never returned). */
export type AlertSettingsChanges = Schemas['PatchedAlertSettingsRequest'];

/* ---------- usage tables ---------- */

export type InstanceUsagePage = AsRendered<Schemas['InstanceUsagePage']>;
export type InstanceUsage = AsRendered<Schemas['InstanceUsage']>;
export type ProjectUsageList = AsRendered<Schemas['ProjectUsageList']>;
export type ProjectUsage = AsRendered<Schemas['ProjectUsage']>;

/* ---------- automation ("Run it for me") ---------- */

/** Why a recommendation cannot be run for you (apps/automation/reasons.py UNAVAILABLE). */
export type AutomationUnavailableReason = Schemas['AutomationUnavailableReasonEnum'];
export type AutomationPlanStatus = Schemas['AutomationPlanStatusEnum'];
export type AutomationActionKind = Schemas['AutomationActionKindEnum'];
export type AutomationActionStatus = Schemas['AutomationActionStatusEnum'];
/** Why an action was skipped, cancelled or failed ('' when it went as planned). */
export type AutomationActionReason = AsRendered<Schemas['AutomationAction']>['reason'];
export type UserRef = AsRendered<Schemas['UserRef']>;
/** `skip_dates`: local days (`YYYY-MM-DD`, the organization's calendar) on which nothing is stopped or started. */
export type AutomationPlan = AsRendered<Schemas['Plan']>;
/** `instance_id` is the instance's id in GPU Ledger (not the cloud's). */
export type AutomationNextAction = AsRendered<Schemas['NextAction']>;
/** One week of the plan: the saving promised and the one the bills show (decimal strings). */
export type AutomationWeek = AsRendered<Schemas['Week']>;
/**
 * `GET /recommendations/{id}/automation`. Without a plan, `next_actions` is what one would do; `plan` is the
 * live plan, else the latest ended one; `unavailable_reason_text` is the reason in the server's words.
 */
export type RecommendationAutomation = AsRendered<Schemas['Automation']>;
/** `POST /recommendations/{id}/automation`: turns "Run it for me" on. */
export type AutomationPlanInput = Schemas['PlanCreateRequest'];
/** `PATCH /recommendations/{id}/automation`: the skip dates and/or pause/resume. */
export type AutomationPlanChanges = Schemas['PatchedPlanUpdateRequest'];
/** One stop or start GPU Ledger made (or tried, or skipped) on the cloud. */
export type AutomationAction = AsRendered<Schemas['AutomationAction']>;
/** `GET/PATCH /automation/settings`: the organization's one switch. */
export type AutomationSettings = AsRendered<Schemas['AutomationSettings']>;
/** `PUT /cloud-accounts/{id}/write-credential`: tested by the server before it is saved. */
export type WriteCredentialInput = Schemas['WriteCredentialRequest'];
