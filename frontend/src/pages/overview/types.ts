/** The API shapes the Overview reads (all from the generated schema). */
import type { components } from '../../api/schema.gen';
import type { AsRendered } from '../../api/types';

type Schemas = components['schemas'];

export type CostReport = AsRendered<Schemas['CostReport']>;
export type CostGroup = AsRendered<Schemas['CostGroup']>;
export type MonthToDate = AsRendered<Schemas['MonthToDate']>;
export type Utilization = AsRendered<Schemas['Utilization']>;
export type Usage = AsRendered<Schemas['Usage']>;
export type HourOfWeek = AsRendered<Schemas['HourOfWeek']>;
export type HourOfWeekCell = AsRendered<Schemas['HourOfWeekCell']>;
export type ProjectTagKey = AsRendered<Schemas['ProjectTagKey']>;

/** What the sections show: the whole organization, or one project of it. */
export interface OverviewScope {
  /** null: the organization. */
  project: { id: number; slug: string; name: string } | null;
  timeZone: string;
  currency: string;
}
