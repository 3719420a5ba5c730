import { api, resetCsrfToken } from './client';
import type {
  AlertEvent,
  AuditEntry,
  AuditFilters,
  AlertRecipient,
  AlertRecipientInput,
  AlertSettings,
  AlertSettingsChanges,
  ApiKey,
  Budget,
  BudgetInput,
  DigestPreview,
  DigestSubscription,
  DigestSubscriptionInput,
  Holiday,
  HolidayInput,
  ThresholdRule,
  ThresholdRuleInput,
  CloudAccount,
  CloudAccountChanges,
  CloudAccountInput,
  ConnectionTestInput,
  ConnectionTestResult,
  CostReport,
  CreatedApiKey,
  Instance,
  InstanceFilters,
  Invitation,
  InvitationAcceptInput,
  Language,
  Me,
  Member,
  Page,
  Period,
  Project,
  ProjectChanges,
  ProjectTagKey,
  ProjectTagKeyInput,
  RecommendationActionInput,
  RecommendationSettings,
  RecommendationSettingsChanges,
  RecommendationDetail,
  RecommendationFilters,
  Recommendation,
  RecommendationTotals,
  Role,
  Scope,
  SetPasswordInput,
  SignupCreated,
  SignupInput,
  SummaryGroupBy,
  Timeseries,
  InstanceUsagePage,
  ProjectUsageList,
  AnalysisSummary,
  InstancePhases,
  InstanceProfile,
  AutomationAction,
  AutomationPlanChanges,
  AutomationPlanInput,
  AutomationSettings,
  RecommendationAutomation,
  WriteCredentialInput,
} from './types';
import type { DateRange } from '../dateRange';

export interface PageQuery {
  page: number;
  pageSize: number;
}

const pageParams = ({ page, pageSize }: PageQuery) => ({ page, page_size: pageSize });

export const authApi = {
  async login(email: string, password: string): Promise<Me> {
    const me = await api.post<Me>('/api/v1/auth/login', { email, password });
    resetCsrfToken(); // Django rotates the CSRF token on login.
    return me;
  },
  async logout(): Promise<void> {
    await api.post<void>('/api/v1/auth/logout');
    resetCsrfToken();
  },
  me: (signal?: AbortSignal) => api.get<Me>('/api/v1/me', undefined, signal),
  /** The signed-in person's own preferences; answers with the updated /me. */
  updateMe: (changes: { language: Language }) => api.patch<Me>('/api/v1/me', changes),
  /** Creates the account and its organization; nobody is signed in until the e-mailed link is opened. */
  signup: (input: SignupInput) => api.post<SignupCreated>('/api/v1/auth/signup', input),
  resendVerification: (email: string) =>
    api.post<SignupCreated>('/api/v1/auth/verify-email/resend', { email }),
  /** Opens the e-mailed link: confirms the address and signs in. */
  async verifyEmail(token: string): Promise<Me> {
    const me = await api.post<Me>('/api/v1/auth/verify-email', { token });
    resetCsrfToken(); // Signing in rotates Django's CSRF token.
    return me;
  },
  async setPassword(input: SetPasswordInput): Promise<Me> {
    const me = await api.post<Me>('/api/v1/auth/set-password', input);
    resetCsrfToken();
    return me;
  },
  switchOrganization: (slug: string) => api.post<Me>('/api/v1/me/organization', { organization: slug }),
};

export const membersApi = {
  list: (q: PageQuery, signal?: AbortSignal) => api.get<Page<Member>>('/api/v1/members', pageParams(q), signal),
  updateRole: (id: number, role: Role) => api.patch<Member>(`/api/v1/members/${id}`, { role }),
  remove: (id: number) => api.delete(`/api/v1/members/${id}`),
};

export const invitationsApi = {
  list: (q: PageQuery, signal?: AbortSignal) =>
    api.get<Page<Invitation>>('/api/v1/invitations', pageParams(q), signal),
  create: (email: string, role: Role) => api.post<Invitation>('/api/v1/invitations', { email, role }),
  revoke: (id: number) => api.delete(`/api/v1/invitations/${id}`),
  /** Works signed out (creates the account and signs in) or signed in (joins with the current account). */
  async accept(input: InvitationAcceptInput): Promise<Me> {
    const me = await api.post<Me>('/api/v1/invitations/accept', input);
    resetCsrfToken(); // Creating the account signs in, and Django rotates the CSRF token on login.
    return me;
  },
};

export const apiKeysApi = {
  list: (q: PageQuery, signal?: AbortSignal) => api.get<Page<ApiKey>>('/api/v1/api-keys', pageParams(q), signal),
  create: (name: string, scope: Scope) => api.post<CreatedApiKey>('/api/v1/api-keys', { name, scope }),
  revoke: (id: number) => api.delete(`/api/v1/api-keys/${id}`),
};

export const cloudAccountsApi = {
  list: (q: PageQuery, signal?: AbortSignal) =>
    api.get<Page<CloudAccount>>('/api/v1/cloud-accounts', pageParams(q), signal),
  create: (input: CloudAccountInput) => api.post<CloudAccount>('/api/v1/cloud-accounts', input),
  /** Only the changed fields; without secret_key the stored SecretKey is kept. */
  update: (id: number, changes: CloudAccountChanges) =>
    api.patch<CloudAccount>(`/api/v1/cloud-accounts/${id}`, changes),
  sync: (id: number) => api.post<void>(`/api/v1/cloud-accounts/${id}/sync`),
  get: (id: number, signal?: AbortSignal) =>
    api.get<CloudAccount>(`/api/v1/cloud-accounts/${id}`, undefined, signal),
  /** Calls Tencent Cloud with these credentials and stores nothing: ok, or the cloud's plain message. */
  testConnection: (input: ConnectionTestInput) =>
    api.post<ConnectionTestResult>('/api/v1/cloud-accounts/test-connection', input),
};

export const projectsApi = {
  list: (q: PageQuery, signal?: AbortSignal) => api.get<Page<Project>>('/api/v1/projects', pageParams(q), signal),
  /** Rename, and/or set the tag values that land in the project (a value taken here leaves any other project). */
  update: (id: number, changes: ProjectChanges) => api.patch<Project>(`/api/v1/projects/${id}`, changes),
};

/** The tag keys whose values name projects; an instance's project is the value of the first key it carries. */
export const projectTagKeysApi = {
  list: (q: PageQuery, signal?: AbortSignal) =>
    api.get<Page<ProjectTagKey>>('/api/v1/project-tag-keys', pageParams(q), signal),
  create: (input: ProjectTagKeyInput) => api.post<ProjectTagKey>('/api/v1/project-tag-keys', input),
  remove: (id: number) => api.delete(`/api/v1/project-tag-keys/${id}`),
};

export const instancesApi = {
  list: (q: PageQuery, filters: InstanceFilters, signal?: AbortSignal) =>
    api.get<Page<Instance>>('/api/v1/instances', { ...pageParams(q), ...filters }, signal),
  get: (id: number, signal?: AbortSignal) => api.get<Instance>(`/api/v1/instances/${id}`, undefined, signal),
  /** Phase segments and money per phase; without a period the API uses the last day (at most 31 days). */
  phases: (id: number, period: Period, signal?: AbortSignal) =>
    api.get<InstancePhases>(`/api/v1/instances/${id}/phases`, { start: period.start, end: period.end }, signal),
  /** Hour-of-week profile and off window; `analysed: false` until the instance has been analysed. */
  profile: (id: number, signal?: AbortSignal) =>
    api.get<InstanceProfile>(`/api/v1/instances/${id}/profile`, undefined, signal),
  /**
   * The utilization curve over `start`..`end` (naive dates in the organization's timezone, the end
   * exclusive). The API picks the finest resolution with at most 1,500 points: the page never asks for
   * more than it can draw.
   */
  timeseries: (id: number, period: { start: string; end: string }, signal?: AbortSignal) =>
    api.get<Timeseries>(`/api/v1/instances/${id}/timeseries`, { start: period.start, end: period.end }, signal),
  /** Billed money per local day of the range (both ends included), split by phase. */
  dailyCost: (providerId: string, range: DateRange, signal?: AbortSignal) =>
    api.get<CostReport>(
      '/api/v1/costs',
      { granularity: 'day', start: range.from, end: range.to, instance: providerId, group_by: 'phase' },
      signal,
    ),
};

export const analysisApi = {
  /** Fleet or per-project GPU-hours and money per phase; without a period the API uses the last 7 days. */
  summary: (groupBy: SummaryGroupBy, period: Period = {}, signal?: AbortSignal) =>
    api.get<AnalysisSummary>(
      '/api/v1/analysis/summary',
      { group_by: groupBy, start: period.start, end: period.end },
      signal,
    ),
};

export const recommendationsApi = {
  /** Without a status the API lists every recommendation that is not resolved. */
  list: (q: PageQuery, filters: RecommendationFilters, signal?: AbortSignal) =>
    api.get<Page<Recommendation>>('/api/v1/recommendations', { ...pageParams(q), ...filters }, signal),
  totals: (filters: RecommendationFilters, signal?: AbortSignal) =>
    api.get<RecommendationTotals>('/api/v1/recommendations/totals', { ...filters }, signal),
  get: (id: number, signal?: AbortSignal) =>
    api.get<RecommendationDetail>(`/api/v1/recommendations/${id}`, undefined, signal),
  /** Answers with the recommendation as it is after the action (its history included). */
  act: (id: number, input: RecommendationActionInput) =>
    api.post<RecommendationDetail>(`/api/v1/recommendations/${id}/actions`, input),
  settings: (signal?: AbortSignal) =>
    api.get<RecommendationSettings>('/api/v1/recommendations/settings', undefined, signal),
  /** Answers with the settings as they are after the change. */
  updateSettings: (changes: RecommendationSettingsChanges) =>
    api.patch<RecommendationSettings>('/api/v1/recommendations/settings', changes),
};

export const digestSubscriptionsApi = {
  list: (q: PageQuery, signal?: AbortSignal) =>
    api.get<Page<DigestSubscription>>('/api/v1/digest-subscriptions', pageParams(q), signal),
  create: (input: DigestSubscriptionInput) => api.post<DigestSubscription>('/api/v1/digest-subscriptions', input),
  update: (id: number, changes: DigestSubscriptionInput) =>
    api.patch<DigestSubscription>(`/api/v1/digest-subscriptions/${id}`, changes),
  remove: (id: number) => api.delete(`/api/v1/digest-subscriptions/${id}`),
  /** The next digest of this subscription, rendered now by the code that sends it. */
  preview: (id: number, signal?: AbortSignal) =>
    api.get<DigestPreview>(`/api/v1/digest-subscriptions/${id}/preview`, undefined, signal),
};

export const holidaysApi = {
  list: (q: PageQuery, signal?: AbortSignal) => api.get<Page<Holiday>>('/api/v1/holidays', pageParams(q), signal),
  create: (input: HolidayInput) => api.post<Holiday>('/api/v1/holidays', input),
  remove: (id: number) => api.delete(`/api/v1/holidays/${id}`),
};

export type ExportKind = 'costs' | 'focus';

/**
 * The download address of an export for `start`..`end` (naive dates in the organization's timezone, the
 * end exclusive). A plain link: the browser sends the session cookie and saves the streamed CSV.
 */
export function exportUrl(kind: ExportKind, period: { start: string; end: string }): string {
  const query = new URLSearchParams({ start: period.start, end: period.end });
  return `/api/v1/exports/${kind}.csv?${query.toString()}`;
}

export const budgetsApi = {
  list: (q: PageQuery, signal?: AbortSignal) => api.get<Page<Budget>>('/api/v1/budgets', pageParams(q), signal),
  create: (input: BudgetInput) => api.post<Budget>('/api/v1/budgets', input),
  update: (id: number, changes: Partial<BudgetInput>) => api.patch<Budget>(`/api/v1/budgets/${id}`, changes),
  remove: (id: number) => api.delete(`/api/v1/budgets/${id}`),
};

export const alertRulesApi = {
  list: (q: PageQuery, signal?: AbortSignal) =>
    api.get<Page<ThresholdRule>>('/api/v1/alert-rules', pageParams(q), signal),
  create: (input: ThresholdRuleInput) => api.post<ThresholdRule>('/api/v1/alert-rules', input),
  update: (id: number, changes: Partial<ThresholdRuleInput>) =>
    api.patch<ThresholdRule>(`/api/v1/alert-rules/${id}`, changes),
  remove: (id: number) => api.delete(`/api/v1/alert-rules/${id}`),
};

export const alertRecipientsApi = {
  list: (q: PageQuery, signal?: AbortSignal) =>
    api.get<Page<AlertRecipient>>('/api/v1/alert-recipients', pageParams(q), signal),
  create: (input: AlertRecipientInput) => api.post<AlertRecipient>('/api/v1/alert-recipients', input),
  remove: (id: number) => api.delete(`/api/v1/alert-recipients/${id}`),
};

export const auditLogApi = {
  /** The organization's audit log, newest first (owners and admins; anyone else gets a 404). */
  list: (q: PageQuery, filters: AuditFilters, signal?: AbortSignal) =>
    api.get<Page<AuditEntry>>('/api/v1/audit-log', { ...pageParams(q), ...filters }, signal),
};

export const alertsApi = {
  /** The alert history, newest first. */
  list: (q: PageQuery, signal?: AbortSignal) => api.get<Page<AlertEvent>>('/api/v1/alerts', pageParams(q), signal),
  settings: (signal?: AbortSignal) => api.get<AlertSettings>('/api/v1/alerts/settings', undefined, signal),
  updateSettings: (changes: AlertSettingsChanges) => api.patch<AlertSettings>('/api/v1/alerts/settings', changes),
};

/** The usage tables: figures of a range of local days (`start`/`end` inclusive). */
export const usageApi = {
  instances: (query: Record<string, string | number | undefined>, signal?: AbortSignal) =>
    api.get<InstanceUsagePage>('/api/v1/usage/instances', query, signal),
  projects: (period: { start: string; end: string }, signal?: AbortSignal) =>
    api.get<ProjectUsageList>('/api/v1/usage/projects', period, signal),
};

/** "Run it for me": GPU Ledger stops and starts the instances of an accepted recommendation itself. */
export const automationApi = {
  /** Whether it can run (and why not), the plan, its next stops/starts and its weeks. */
  get: (recommendationId: number, signal?: AbortSignal) =>
    api.get<RecommendationAutomation>(`/api/v1/recommendations/${recommendationId}/automation`, undefined, signal),
  /** Turns it on; answers with the automation as it is now. */
  enable: (recommendationId: number, input: AutomationPlanInput) =>
    api.post<RecommendationAutomation>(`/api/v1/recommendations/${recommendationId}/automation`, input),
  /** Skip dates and/or pause/resume; answers with the automation as it is now. */
  update: (recommendationId: number, changes: AutomationPlanChanges) =>
    api.patch<RecommendationAutomation>(`/api/v1/recommendations/${recommendationId}/automation`, changes),
  /** Turns it off: nothing more is stopped or started (what was done stays in the history). */
  disable: (recommendationId: number) => api.delete(`/api/v1/recommendations/${recommendationId}/automation`),
  /** The stops and starts made for one recommendation, newest first. */
  actions: (recommendationId: number, q: PageQuery, signal?: AbortSignal) =>
    api.get<Page<AutomationAction>>('/api/v1/automation/actions', { ...pageParams(q), recommendation: recommendationId }, signal),
  settings: (signal?: AbortSignal) => api.get<AutomationSettings>('/api/v1/automation/settings', undefined, signal),
  updateSettings: (changes: AutomationSettings) => api.patch<AutomationSettings>('/api/v1/automation/settings', changes),
  /** The server tries the credential on the cloud first, and refuses (400, the field's message) one that fails. */
  setWriteCredential: (accountId: number, input: WriteCredentialInput) =>
    api.put<CloudAccount>(`/api/v1/cloud-accounts/${accountId}/write-credential`, input),
  removeWriteCredential: (accountId: number) => api.delete(`/api/v1/cloud-accounts/${accountId}/write-credential`),
  /** The account's switch; a 400 `read_only_credential` when it has no write credential. */
  setAccountAutomation: (accountId: number, enabled: boolean) =>
    api.patch<CloudAccount>(`/api/v1/cloud-accounts/${accountId}`, { automation_enabled: enabled }),
};
