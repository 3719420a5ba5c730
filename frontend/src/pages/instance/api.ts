/**
 * The instance page's own reads: its time series and its daily cost by phase. (Kept beside the page rather
 * than in api/endpoints.ts, which the other pages' work edits too.)
 */
import { api } from '../../api/client';
import type { components } from '../../api/schema.gen';
import type { AsRendered } from '../../api/types';
import type { DateRange } from '../../dateRange';

export type Timeseries = AsRendered<components['schemas']['Timeseries']>;
export type CostReport = AsRendered<components['schemas']['CostReport']>;

export const instancePageApi = {
  /**
   * The utilization curve over `start`..`end` (naive dates in the organization's timezone, the end
   * exclusive). The API picks the finest resolution with at most `max_points` points (1,500): the page never
   * asks for more than it can draw.
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
