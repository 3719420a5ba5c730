import type { Phase } from './api/untypedEndpoints';

/** Display order: productive work first, then the two kinds of waste, then missing data. */
export const PHASES: Phase[] = ['training', 'evaluation', 'data_processing', 'idle', 'unknown'];

export const PHASE_LABELS: Record<Phase, string> = {
  training: 'Training',
  evaluation: 'Evaluation',
  data_processing: 'Data processing (data-bound)',
  idle: 'Idle',
  unknown: 'No data',
};

export const PHASE_DESCRIPTIONS: Record<Phase, string> = {
  training: 'Fluctuating, high GPU utilization with GPU memory in use.',
  evaluation: 'Steady, moderate GPU utilization, typically short and after training.',
  data_processing: 'GPU utilization low while the CPU is busy feeding it: the GPUs wait for data.',
  idle: 'GPU and CPU both near zero: paid for, doing nothing (allocated memory does not count as work).',
  unknown: 'No monitoring data for these minutes; never guessed.',
};

export const PHASE_COLORS: Record<Phase, string> = {
  training: '#1e7d4f',
  evaluation: '#3b6fd8',
  data_processing: '#e08a2c',
  idle: '#c0392b',
  unknown: '#b8c0cc',
};

export function phaseLabel(phase: string): string {
  return PHASE_LABELS[phase as Phase] ?? phase;
}

/** 135 -> "2 h 15 m", 60 -> "1 h", 45 -> "45 m", 0 -> "0 m". */
export function formatMinutes(minutes: number | null | undefined): string {
  if (minutes == null || !Number.isFinite(minutes)) return '—';
  const total = Math.max(0, Math.round(minutes));
  const h = Math.floor(total / 60);
  const m = total % 60;
  if (h === 0) return `${m} m`;
  return m === 0 ? `${h.toLocaleString('en-US')} h` : `${h.toLocaleString('en-US')} h ${m} m`;
}
