/** The words and choices the UI shows for cloud accounts and instances, keyed by the API's values. */
import { i18n, translatedLabels } from '../i18n';
import type { ChargeType, CloudAccountStatus, CloudSite, SyncKind, TencentRegion } from './types';

export const SITE_LABELS: Record<CloudSite, string> = translatedLabels(['china', 'intl'] as const, 'cloud.site');

export const CLOUD_STATUS_LABELS: Record<CloudAccountStatus, string> = translatedLabels(['pending', 'ok', 'failing', 'disabled'] as const, 'cloud.status');

/** In the order the sync table lists them. */
export const SYNC_KIND_LABELS: Record<SyncKind, string> = translatedLabels(['inventory', 'prices', 'metrics', 'bills', 'balance'] as const, 'cloud.syncKind');

export const SYNC_KINDS = Object.keys(SYNC_KIND_LABELS) as SyncKind[];

/** Tencent Cloud regions with GPU instances the connect form offers, with their city. */
const REGIONS: [TencentRegion, boolean][] = [
  ['ap-guangzhou', true],
  ['ap-shanghai', true],
  ['ap-beijing', true],
  ['ap-chengdu', true],
  ['ap-chongqing', true],
  ['ap-nanjing', true],
  ['ap-hongkong', false],
  ['ap-singapore', false],
  ['ap-bangkok', false],
  ['ap-jakarta', false],
  ['ap-seoul', false],
  ['ap-tokyo', false],
  ['ap-mumbai', false],
  ['na-siliconvalley', false],
  ['na-ashburn', false],
  ['na-toronto', false],
  ['eu-frankfurt', false],
  ['sa-saopaulo', false],
];

/** Tencent Cloud regions with GPU instances the connect form offers; `city` is in the UI's language. */
export const TENCENT_REGIONS: { code: TencentRegion; readonly city: string; mainland: boolean }[] = REGIONS.map(([code, mainland]) => ({
  code,
  mainland,
  get city() {
    return i18n.t(`region.${code}`);
  },
}));

export const CHARGE_TYPE_LABELS: Record<ChargeType, string> = translatedLabels(['POSTPAID_BY_HOUR', 'PREPAID', 'SPOTPAID', 'CDHPAID', 'CDCPAID'] as const, 'chargeType');

/** Tencent Cloud CVM InstanceState values, in words; TERMINATED is GPU Ledger's mark for a vanished instance. */
export const INSTANCE_STATE_LABELS: Record<string, string> = translatedLabels(['RUNNING', 'STOPPED', 'PENDING', 'STARTING', 'STOPPING', 'REBOOTING', 'LAUNCH_FAILED', 'SHUTDOWN', 'TERMINATING', 'TERMINATED'] as const, 'instanceState');
