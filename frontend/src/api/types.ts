export type Role = 'owner' | 'admin' | 'lead' | 'finance' | 'viewer';
export type Currency = 'CNY' | 'USD';
export type Scope = 'read' | 'write';

export const ROLES: Role[] = ['owner', 'admin', 'lead', 'finance', 'viewer'];

export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  lead: 'Team lead',
  finance: 'Finance',
  viewer: 'Viewer',
};

export interface Org {
  id: number;
  slug: string;
  name: string;
  timezone: string;
  currency: Currency;
  role: Role;
}

export interface Me {
  id: number;
  email: string;
  name: string;
  organization: Org | null;
  organizations: Org[];
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface UserSummary {
  id: number;
  email: string;
  name: string;
}

export interface Member {
  id: number;
  user: UserSummary;
  role: Role;
  created_at: string;
}

export interface Invitation {
  id: number;
  email: string;
  role: Role;
  /** The contract does not pin the shape: a user object, an e-mail, a name or an id. */
  invited_by: UserSummary | string | number | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  scope: Scope;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKey {
  /** The full secret. Returned once, on creation only. */
  key: string;
}

/* ---------- invitations (accepting) ---------- */

export interface InvitationAcceptInput {
  token: string;
  /** Only when creating an account (signed out). */
  name?: string;
  password?: string;
}

/* ---------- cloud accounts ---------- */

export type CloudSite = 'china' | 'intl';
export type EndpointScheme = 'https' | 'http';
export type CloudAccountStatus = 'pending' | 'ok' | 'failing' | 'disabled';
export type SyncKind = 'inventory' | 'prices' | 'metrics' | 'bills' | 'balance';

export interface SyncStatus {
  kind: SyncKind;
  last_success_at: string | null;
  next_run_at: string | null;
  last_error: string;
}

export interface CloudAccount {
  id: number;
  name: string;
  provider: 'tencent';
  secret_id: string;
  regions: string[];
  site: CloudSite;
  /** host:port every service is sent to; "" means Tencent Cloud's own endpoints. */
  endpoint: string;
  endpoint_scheme: EndpointScheme;
  currency: Currency;
  status: CloudAccountStatus;
  last_error: string;
  last_error_at: string | null;
  sync: SyncStatus[];
  created_at: string;
}

/** What the form sends. The SecretKey is write-only: sent on create (and on replace), never returned. */
export interface CloudAccountInput {
  name: string;
  secret_id: string;
  secret_key: string;
  regions: string[];
  site: CloudSite;
  endpoint: string;
  endpoint_scheme: EndpointScheme;
}

export const SITE_LABELS: Record<CloudSite, string> = {
  china: 'China site (bills in CNY)',
  intl: 'International site (bills in USD)',
};

export const CLOUD_STATUS_LABELS: Record<CloudAccountStatus, string> = {
  pending: 'Not synced yet',
  ok: 'OK',
  failing: 'Failing',
  disabled: 'Disabled',
};

export const SYNC_KINDS: SyncKind[] = ['inventory', 'prices', 'metrics', 'bills', 'balance'];

export const SYNC_KIND_LABELS: Record<SyncKind, string> = {
  inventory: 'Instances and tags',
  prices: 'Price catalog',
  metrics: 'Monitoring metrics',
  bills: 'Bills',
  balance: 'Account balance',
};

/** Tencent Cloud regions with GPU instances the connect form offers, with their city. */
export const TENCENT_REGIONS: { code: string; city: string; mainland: boolean }[] = [
  { code: 'ap-guangzhou', city: 'Guangzhou', mainland: true },
  { code: 'ap-shanghai', city: 'Shanghai', mainland: true },
  { code: 'ap-beijing', city: 'Beijing', mainland: true },
  { code: 'ap-chengdu', city: 'Chengdu', mainland: true },
  { code: 'ap-chongqing', city: 'Chongqing', mainland: true },
  { code: 'ap-nanjing', city: 'Nanjing', mainland: true },
  { code: 'ap-hongkong', city: 'Hong Kong', mainland: false },
  { code: 'ap-singapore', city: 'Singapore', mainland: false },
  { code: 'ap-bangkok', city: 'Bangkok', mainland: false },
  { code: 'ap-jakarta', city: 'Jakarta', mainland: false },
  { code: 'ap-seoul', city: 'Seoul', mainland: false },
  { code: 'ap-tokyo', city: 'Tokyo', mainland: false },
  { code: 'ap-mumbai', city: 'Mumbai', mainland: false },
  { code: 'na-siliconvalley', city: 'Silicon Valley', mainland: false },
  { code: 'na-ashburn', city: 'Virginia', mainland: false },
  { code: 'na-toronto', city: 'Toronto', mainland: false },
  { code: 'eu-frankfurt', city: 'Frankfurt', mainland: false },
  { code: 'sa-saopaulo', city: 'São Paulo', mainland: false },
];

/* ---------- inventory ---------- */

export interface Project {
  id: number;
  name: string;
  slug: string;
  tag_values: string[];
}

export type ChargeType = 'POSTPAID_BY_HOUR' | 'PREPAID' | 'SPOTPAID' | 'CDHPAID' | 'CDCPAID';

export const CHARGE_TYPE_LABELS: Record<ChargeType, string> = {
  POSTPAID_BY_HOUR: 'Pay-as-you-go',
  PREPAID: 'Monthly subscription',
  SPOTPAID: 'Spot',
  CDHPAID: 'Dedicated host',
  CDCPAID: 'Dedicated cluster',
};

/** Tencent Cloud CVM InstanceState values, in words; TERMINATED is GPU Ledger's mark for a vanished instance. */
export const INSTANCE_STATE_LABELS: Record<string, string> = {
  RUNNING: 'Running',
  STOPPED: 'Stopped',
  PENDING: 'Creating',
  STARTING: 'Starting',
  STOPPING: 'Stopping',
  REBOOTING: 'Rebooting',
  LAUNCH_FAILED: 'Launch failed',
  SHUTDOWN: 'Shut down',
  TERMINATING: 'Terminating',
  TERMINATED: 'Terminated',
};

export interface Instance {
  id: number;
  provider_id: string;
  name: string;
  region: string;
  zone: string;
  instance_type: string;
  gpu_model: string;
  /** Below 1 means a vGPU share. */
  gpu_count: number;
  /** Per card. */
  gpu_memory_gb: number;
  cpu_cores: number;
  memory_gb: number;
  /** One of ChargeType; kept open so a new Tencent billing mode still renders. */
  charge_type: string;
  state: string;
  tags: Record<string, string>;
  /** The project's name, or null when no tag rule matched (Unallocated). */
  project: string | null;
  launched_at: string | null;
  expires_at: string | null;
  terminated_at: string | null;
}

export interface InstanceFilters {
  region?: string;
  charge_type?: string;
  state?: string;
  project?: string;
}

/* ---------- utilization analysis ---------- */

export type Phase = 'unknown' | 'idle' | 'data_processing' | 'evaluation' | 'training';

/** Where an instance's money comes from: its bills, the list price (an estimate), or nowhere. */
export type CostSource = 'bills' | 'list_price' | 'unpriced';

export interface PhaseFigures {
  minutes: number;
  /** Decimal string, e.g. "2.2500". */
  gpu_hours: string;
  /** Decimal string in the response's currency; null when the instance is unpriced. */
  cost: string | null;
}

export interface PhaseSegment {
  phase: Phase;
  start_at: string;
  end_at: string;
  minutes: number;
  mean_gpu_util_pct: number | null;
}

export interface InstancePhases {
  instance_id: number;
  start: string;
  end: string;
  currency: string;
  cost_source: CostSource;
  /** Money as decimal strings; null when cost_source is "unpriced". */
  cost: string | null;
  idle_cost: string | null;
  data_bound_cost: string | null;
  totals: Partial<Record<Phase, PhaseFigures>>;
  segments: PhaseSegment[];
}

export interface OffWindowRun {
  /** 0 = Monday. Hours in the profile's timezone; the end hour is exclusive. */
  start_weekday: number;
  start_hour: number;
  end_weekday: number;
  end_hour: number;
  hours: number;
  label: string;
}

export interface OffWindow {
  runs: OffWindowRun[];
  weekly_hours: number;
  supporting_weeks: number;
  observed_weeks: number;
  p95_max_pct: number;
  description: string;
}

/** 7 rows (Monday first) x 24 hours. */
export type WeekGrid = (number | null)[][];

export interface InstanceProfile {
  instance_id: number;
  analysed: boolean;
  tz: string;
  start_at: string | null;
  end_at: string | null;
  computed_at: string | null;
  median_pct: WeekGrid | null;
  p95_pct: WeekGrid | null;
  coverage: WeekGrid | null;
  off_window: OffWindow | null;
}

export interface WasteTotals {
  instance_count: number;
  gpu_hours: string;
  cost: string;
  idle_cost: string;
  data_bound_cost: string;
  wasted_cost: string;
  unknown_cost: string;
  phases: Partial<Record<Phase, PhaseFigures>>;
  cost_sources: Record<CostSource, number>;
}

export interface ProjectWaste extends WasteTotals {
  project_id: number | null;
  project_name: string;
}

export type SummaryGroupBy = 'fleet' | 'project';

export interface AnalysisSummary {
  start: string;
  end: string;
  group_by: SummaryGroupBy;
  currency: string;
  totals: WasteTotals;
  /** Only with group_by=project. */
  groups?: ProjectWaste[];
}

export interface Period {
  start?: string;
  end?: string;
}
