/**
 * Query keys, one prefix per resource: a mutation invalidates its resource's prefix and every page,
 * filter and period of it is fetched again. The organization is not in the keys: the whole cache is
 * dropped when the signed-in user or the active organization changes (see AuthContext).
 */
export const queryKeys = {
  instances: ['instances'] as const,
  instance: (id: number) => ['instance', id] as const,
  projects: ['projects'] as const,
  analysisSummary: ['analysis-summary'] as const,
  members: ['members'] as const,
  invitations: ['invitations'] as const,
  apiKeys: ['api-keys'] as const,
  cloudAccounts: ['cloud-accounts'] as const,
  cloudAccount: (id: number) => ['cloud-account', id] as const,
  /** Lists and totals share the prefix: an action on one recommendation invalidates both. */
  recommendations: ['recommendations'] as const,
  recommendation: (id: number) => ['recommendation', id] as const,
  recommendationSettings: ['recommendation-settings'] as const,
  /** A recommendation's "Run it for me" plan and the stops/starts made for it. */
  automation: (recommendationId: number) => ['automation', recommendationId] as const,
  /** Every recommendation's automation: a credential, an account switch or the organization's pause changes them. */
  automationAll: ['automation'] as const,
  automationActions: (recommendationId: number) => ['automation-actions', recommendationId] as const,
  automationSettings: ['automation-settings'] as const,
  digestSubscriptions: ['digest-subscriptions'] as const,
  digestPreview: (id: number) => ['digest-preview', id] as const,
  holidays: ['holidays'] as const,
  budgets: ['budgets'] as const,
  alertRules: ['alert-rules'] as const,
  alertRecipients: ['alert-recipients'] as const,
  alerts: ['alerts'] as const,
  alertSettings: ['alert-settings'] as const,
  /** Written by the server beside every audited change; read fresh whenever the tab opens. */
  auditLog: ['audit-log'] as const,
  /** The cost report (/costs) and the utilization reads: refetched after a sync, never mutated here. */
  costs: ['costs'] as const,
  utilization: ['utilization'] as const,
  hourOfWeek: ['utilization-hour-of-week'] as const,
  projectTagKeys: ['project-tag-keys'] as const,
  /** The usage tables read bills and rollups: a sync or project change invalidates them by prefix. */
  usageInstances: ['usage-instances'] as const,
  usageProjects: ['usage-projects'] as const,
};

export type QueryKey = readonly unknown[];
