/** Instance facts in words, shared by the Instances table and the instance page. */
import type { ChargeType, Instance } from '../../api/types';
import { CHARGE_TYPE_LABELS, INSTANCE_STATE_LABELS } from '../../api/cloudChoices';
import { formatNumber } from '../../format';
import { i18n } from '../../i18n';

/** "1 x NVIDIA T4 (16 GB)"; a share below 1 is a vGPU ("0.25 x NVIDIA A10 (24 GB)"). */
export function formatGpus(instance: Pick<Instance, 'gpu_count' | 'gpu_model' | 'gpu_memory_gb'>): string {
  if (!instance.gpu_count) return i18n.t('instances.noGpu');
  const model = instance.gpu_model || 'GPU';
  const count = formatNumber(instance.gpu_count);
  return instance.gpu_memory_gb > 0
    ? i18n.t('instances.gpusWithMemory', { count, model, memory: formatNumber(instance.gpu_memory_gb) })
    : i18n.t('instances.gpus', { count, model });
}

export function chargeTypeLabel(chargeType: string): string {
  return CHARGE_TYPE_LABELS[chargeType as ChargeType] ?? chargeType;
}

export function isTerminated(instance: Pick<Instance, 'state' | 'terminated_at'>): boolean {
  return Boolean(instance.terminated_at) || instance.state === 'TERMINATED';
}

export function stateLabel(state: string): string {
  return INSTANCE_STATE_LABELS[state] ?? state.charAt(0) + state.slice(1).toLowerCase().replace(/_/g, ' ');
}

export function stateTone(instance: Pick<Instance, 'state' | 'terminated_at'>): string {
  if (isTerminated(instance)) return 'muted';
  if (instance.state === 'RUNNING') return 'success';
  if (instance.state === 'LAUNCH_FAILED') return 'danger';
  if (instance.state === 'STOPPED' || instance.state === 'SHUTDOWN') return 'muted';
  return 'info';
}

/**
 * Tencent Cloud tags are key -> value strings, but the schema leaves `tags` untyped (a JSONField without a
 * declared shape), so anything that is not an object shows as no tags rather than breaking the row.
 */
export function tagEntries(tags: unknown): [string, string][] {
  if (tags === null || typeof tags !== 'object' || Array.isArray(tags)) return [];
  return Object.entries(tags).map(([key, value]) => [key, String(value)]);
}

