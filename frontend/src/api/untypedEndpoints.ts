/**
 * Response types of the endpoints whose OpenAPI schema is still a bare object (`{[key: string]: unknown}`):
 * analysis/summary, instances/{id}/phases and instances/{id}/profile. Their views return dictionaries without
 * a response serializer, so the schema cannot describe them and these types are written by hand from the
 * views. (analysis/settings is in the same state but the front-end does not call it yet.) They go when those
 * endpoints get typed serializers (a later issue); nothing else in the front-end describes a payload by hand.
 */

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

/* ---------- GET /instances/{id}/phases ---------- */

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

/* ---------- GET /instances/{id}/profile ---------- */

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

/* ---------- GET /analysis/summary ---------- */

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

/** Why spend has no project: no project tag, the tag with an empty value, a value no project takes. */
export type UnallocatedReason = 'no_tag' | 'empty_value' | 'no_rule';

export interface UnallocatedReasonWaste extends WasteTotals {
  reason: UnallocatedReason;
  reason_label: string;
}

export interface ProjectWaste extends WasteTotals {
  project_id: number | null;
  project_name: string;
  /** Only in the Unallocated group (null in a project's): its figures by reason; the parts add up to it. */
  unallocated_by_reason?: UnallocatedReasonWaste[] | null;
}

export interface AnalysisSummary {
  start: string;
  end: string;
  group_by: 'fleet' | 'project';
  currency: string;
  totals: WasteTotals;
  /** Only with group_by=project. */
  groups?: ProjectWaste[];
}
