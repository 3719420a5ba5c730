/**
 * Words and rules of the recommendations pages that do not render anything: the kinds and statuses in the
 * UI language, which action each status allows (the API's own table, so no button is offered that the API
 * would refuse), the evidence figures' names, and the snooze date as the moment the API wants.
 */
import type { RecommendationActionName, RecommendationKind, RecommendationStatus } from '../../api/types';
import { i18n, translatedLabels } from '../../i18n';

/** Every kind the API knows, in the order the issue lists them; a missing one fails to compile below. */
const KIND_ORDER: Record<RecommendationKind, number> = {
  stop_idle: 0,
  idle_held: 1,
  schedule: 2,
  night_downshift: 3,
  subscription: 4,
  reserved_instance: 5,
  spot: 6,
  downsize: 7,
  upsize: 8,
  data_pipeline: 9,
  thermal: 10,
};
export const KINDS = (Object.keys(KIND_ORDER) as RecommendationKind[]).sort((a, b) => KIND_ORDER[a] - KIND_ORDER[b]);
export const KIND_LABELS: Record<RecommendationKind, string> = translatedLabels(KINDS, 'recommendations.kind');

/** The status filter's order: what needs a decision first. */
export const STATUSES: RecommendationStatus[] = ['open', 'accepted', 'dismissed', 'snoozed', 'resolved'];
export const STATUS_LABELS: Record<RecommendationStatus, string> = translatedLabels(STATUSES, 'recommendations.status');

/** The status inside a sentence ("3 open recommendations", "… is now accepted"). */
const STATUS_INLINE: Record<RecommendationStatus, string> = translatedLabels(STATUSES, 'recommendations.statusInline');

export function statusInline(status: string): string {
  return (STATUS_INLINE as Record<string, string>)[status] ?? status;
}

export const ACTIONS: RecommendationActionName[] = ['accept', 'dismiss', 'snooze', 'reopen'];

/** The statuses each action applies to (apps/recommendations/services.py `_ACTIONABLE`). */
const ACTIONABLE: Record<RecommendationActionName, RecommendationStatus[]> = {
  accept: ['open', 'snoozed', 'dismissed'],
  dismiss: ['open', 'snoozed', 'accepted'],
  snooze: ['open', 'dismissed'],
  reopen: ['accepted', 'dismissed', 'snoozed'],
};

/** The actions a recommendation in `status` allows (none once resolved: the finding is gone). */
export function allowedActions(status: RecommendationStatus): RecommendationActionName[] {
  return ACTIONS.filter((action) => ACTIONABLE[action].includes(status));
}

export function kindLabel(kind: string, fallback?: string): string {
  return (KIND_LABELS as Record<string, string>)[kind] ?? fallback ?? kind;
}

export function statusLabel(status: string): string {
  return (STATUS_LABELS as Record<string, string>)[status] ?? status;
}

/** The evidence figure names the rules write; others are shown with their underscores as spaces. */
export const FIGURE_NAMES = [
  'analysed_minutes',
  'billed_hours',
  'billed_runtime_cost',
  'break_even_uptime_pct',
  'commitment_monthly',
  'current_cost_per_million_samples',
  'current_samples_per_currency_unit',
  'current_samples_per_hour',
  'data_bound_minutes',
  'data_bound_minutes_without_cpu',
  'data_bound_share_pct',
  'family',
  'gpu_count',
  'gpu_mem_avg_pct',
  'gpu_mem_min_pct',
  'gpu_mem_peak_pct',
  'gpu_memory_gb',
  'gpu_util_avg_pct',
  'gpu_util_p95_pct',
  'hot_hours',
  'hourly_price',
  'hours_per_month',
  'idle_gpu_util_p95_max_pct',
  'idle_held_hours',
  'idle_hours',
  'idle_share_pct',
  'instance_type',
  'instances',
  'keep',
  'keeps_billing_hourly',
  'kept_load_max_pct',
  'memory_pressure_share_pct',
  'night_p95_peak_pct',
  'observed_hours',
  'options',
  'p95_max_pct',
  'payg_monthly',
  'plan',
  'postpaid_hourly',
  'price',
  'quiet_hours',
  'region',
  'running_hours_per_month',
  'running_hours_per_week_in_window',
  'spot_hourly',
  'state',
  'stopping_saves_hourly',
  'summed_night_p95_peak_pct',
  'supporting_weeks',
  'tags',
  'target',
  'target_cost_per_million_samples',
  'target_gpu_count',
  'target_gpu_memory_gb',
  'target_hourly',
  'target_hours_for_the_same_work',
  'target_load_max_pct',
  'target_samples_per_currency_unit',
  'target_samples_per_hour',
  'temp_p95_peak_c',
  'tz',
  'uptime_pct',
  'weekly_hours',
  'weekly_off_hours',
  'when_stopped',
] as const;
const FIGURE_LABELS: Record<string, string> = translatedLabels(FIGURE_NAMES, 'recommendations.figure');

/** The parts of a nested figure the rules write (a price's components: `price.runtime_components.v_cvm_gpu.cost`). */
export const FIGURE_PARTS = [
  'runtime_hourly',
  'price_source',
  'runtime_components',
  'persistent_hourly',
  'persistent_components',
  'unknown_components',
  'unknown_cost',
  'currency',
  'cost',
  'name',
  'class',
  'hours',
  'hourly',
  'monthly',
] as const;
const FIGURE_PART_LABELS: Record<string, string> = translatedLabels(FIGURE_PARTS, 'recommendations.figurePart');
/** Tencent Cloud's bill component codes (`v_cvm_rootdisk`): the bill's own names, shown as they are. */
const BILL_COMPONENT_CODE = /^s?v_[a-z0-9_]+$/;

/** A part of a nested figure: its own name, else a figure's (`options.subscription.break_even_uptime_pct`), else a
 * recommendation kind's (the options a subscription was chosen from), else the bill's code or the part itself. */
function figurePart(part: string): string {
  if (Object.hasOwn(FIGURE_PART_LABELS, part)) return FIGURE_PART_LABELS[part];
  if (Object.hasOwn(FIGURE_LABELS, part)) return FIGURE_LABELS[part];
  if (Object.hasOwn(KIND_LABELS, part)) return KIND_LABELS[part as RecommendationKind];
  return BILL_COMPONENT_CODE.test(part) ? part : part.replace(/_/g, ' ');
}

/** "idle_share_pct" -> "Idle share (%)"; a nested figure ("options.monthly") names its parent first. */
export function figureLabel(name: string): string {
  const [head = name, ...rest] = name.split('.');
  const known = FIGURE_LABELS[head];
  const first = known ?? head.replace(/_/g, ' ');
  return rest.length ? i18n.t('recommendations.figure.nested', { parent: first, child: rest.map(figurePart).join(' · ') }) : first;
}

/** How the saving's price was found: the bills (a discounted price actually paid) or the catalog. */
export const PRICE_SOURCES = ['bills', 'catalog', 'none'] as const;
const PRICE_SOURCE_LABELS: Record<string, string> = translatedLabels(PRICE_SOURCES, 'recommendations.priceSource');

export function priceSourceLabel(source: string): string {
  return PRICE_SOURCE_LABELS[source] ?? source;
}

/** A bill component's class (`apps.billing.classify`): what stops billing when the instance is stopped. */
export const COMPONENT_CLASSES = ['runtime', 'storage', 'network', 'unknown'] as const;
const COMPONENT_CLASS_LABELS: Record<string, string> = translatedLabels(COMPONENT_CLASSES, 'recommendations.componentClass');

/** A figure's value in words where it is one of the API's codes (a price's source, a component's class); else as it is. */
export function figureValue(name: string, value: string): string {
  const part = name.split('.').pop() ?? name;
  if (part === 'price_source') return PRICE_SOURCE_LABELS[value] ?? value;
  if (part === 'class') return COMPONENT_CLASS_LABELS[value] ?? value;
  return value;
}

export const CONFIDENCE_LEVELS = ['high', 'medium', 'low'] as const;
export const CONFIDENCE_LABELS: Record<string, string> = translatedLabels(CONFIDENCE_LEVELS, 'recommendations.confidence');

/** Risk 0..4 in words: none, low, moderate, high, very high. */
export const RISK_LEVELS = ['0', '1', '2', '3', '4'] as const;
const RISK_LABELS: Record<string, string> = translatedLabels(RISK_LEVELS, 'recommendations.risk');

export function riskLabel(level: number): string {
  return RISK_LABELS[String(level)] ?? String(level);
}

// The start of a day in the organization's timezone now lives with the other day helpers.
export { startOfDayIn } from '../../dateRange';
