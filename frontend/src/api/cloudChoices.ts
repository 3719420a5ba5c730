/** The words and choices the UI shows for cloud accounts and instances, keyed by the API's values. */
import type { ChargeType, CloudAccountStatus, CloudSite, SyncKind } from './types';

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

/** In the order the sync table lists them. */
export const SYNC_KIND_LABELS: Record<SyncKind, string> = {
  inventory: 'Instances and tags',
  prices: 'Price catalog',
  metrics: 'Monitoring metrics',
  bills: 'Bills',
  balance: 'Account balance',
};

export const SYNC_KINDS = Object.keys(SYNC_KIND_LABELS) as SyncKind[];

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
