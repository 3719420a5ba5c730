import type { NoData, NoDataReason, Phase } from './api/types';
import { i18n, translatedLabels } from './i18n';

/** Display order: productive work first, then the two kinds of waste, then missing data. */
export const PHASES: Phase[] = ['training', 'evaluation', 'data_processing', 'idle', 'unknown'];

export const PHASE_LABELS: Record<Phase, string> = translatedLabels(PHASES, 'phase.label');

export const PHASE_DESCRIPTIONS: Record<Phase, string> = translatedLabels(PHASES, 'phase.description');

export const PHASE_COLORS: Record<Phase, string> = {
  training: '#1e7d4f',
  evaluation: '#3b6fd8',
  data_processing: '#e08a2c',
  idle: '#c0392b',
  unknown: '#b8c0cc',
};

/** Why minutes have no phase ("No data"), in display order: the API's reason codes. */
export const NO_DATA_REASONS: NoDataReason[] = ['no_metrics', 'stopped', 'not_analysed'];

export const NO_DATA_LABELS: Record<NoDataReason, string> = translatedLabels(NO_DATA_REASONS, 'phase.noData');

/** The reasons that account for some of the "No data" minutes or money, in display order. */
export function noDataRows(noData: readonly NoData[] | undefined): NoData[] {
  const byReason = new Map((noData ?? []).map((item) => [item.reason, item]));
  return NO_DATA_REASONS.flatMap((reason) => {
    const item = byReason.get(reason);
    return item && (item.minutes > 0 || Number(item.cost ?? 0) !== 0) ? [item] : [];
  });
}

export function phaseLabel(phase: string): string {
  return PHASE_LABELS[phase as Phase] ?? phase;
}

/** 135 -> "2 h 15 m", 60 -> "1 h", 45 -> "45 m", 0 -> "0 m". */
export function formatMinutes(minutes: number | null | undefined): string {
  if (minutes == null || !Number.isFinite(minutes)) return '—';
  const total = Math.max(0, Math.round(minutes));
  const h = Math.floor(total / 60);
  const m = total % 60;
  if (h === 0) return i18n.t('duration.minutes', { m });
  const hours = h.toLocaleString('en-US');
  return m === 0 ? i18n.t('duration.hours', { h: hours }) : i18n.t('duration.hoursMinutes', { h: hours, m });
}
