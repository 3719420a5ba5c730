/** The Overview's reads, each cached by TanStack Query; every one is scoped to the optional project. */
import { api } from '../../api/client';
import type {
  Budget,
  CloudAccount,
  CostReport,
  HourOfWeek,
  Page,
  Project,
  ProjectTagKey,
  Recommendation,
  Utilization,
} from '../../api/types';
import { queryKeys } from '../../data/keys';
import { useApiData } from '../../hooks';
import type { OverviewScope } from './types';
import { DEFAULT_BASIS, type CostBasis } from './CostBasis';

/** Inclusive local days, as /costs and /utilization read them. */
export interface Days {
  start: string;
  end: string;
}

function projectParam(scope: OverviewScope): { project?: string } {
  return scope.project ? { project: scope.project.slug } : {};
}

/** This month so far (the API's default period) by month: its `month_to_date` carries the cards' figures. */
export function useMonthToDate(scope: OverviewScope) {
  const query = { granularity: 'month', ...projectParam(scope) };
  return useApiData<CostReport>([...queryKeys.costs, 'mtd', query], (signal) => api.get<CostReport>('/api/v1/costs', query, signal));
}

/** The money of some days, e.g. the same days of last month. */
export function useCostTotal(scope: OverviewScope, days: Days | null) {
  const query = { granularity: 'month', start: days?.start, end: days?.end, ...projectParam(scope) };
  return useApiData<CostReport>(
    [...queryKeys.costs, 'total', query],
    (signal) => api.get<CostReport>('/api/v1/costs', query, signal),
    { enabled: days !== null },
  );
}

export function useSpendByDay(scope: OverviewScope, days: Days, groupBy: string, basis: CostBasis = DEFAULT_BASIS) {
  const query = { granularity: 'day', start: days.start, end: days.end, group_by: groupBy, basis, ...projectParam(scope) };
  return useApiData<CostReport>([...queryKeys.costs, 'by-day', query], (signal) => api.get<CostReport>('/api/v1/costs', query, signal));
}

export function useUtilization(scope: OverviewScope, days: Days) {
  const query = { start: days.start, end: days.end, ...projectParam(scope) };
  return useApiData<Utilization>([...queryKeys.utilization, query], (signal) =>
    api.get<Utilization>('/api/v1/utilization', query, signal),
  );
}

export function useHourOfWeek(scope: OverviewScope, days: Days) {
  const query = { start: days.start, end: days.end, ...projectParam(scope) };
  return useApiData<HourOfWeek>([...queryKeys.hourOfWeek, query], (signal) =>
    api.get<HourOfWeek>('/api/v1/utilization/hour-of-week', query, signal),
  );
}

/** Every budget of the organization (a handful); the section picks the organization's or the project's. */
export function useBudgets() {
  return useApiData<Page<Budget>>([...queryKeys.budgets, 'overview'], (signal) =>
    api.get<Page<Budget>>('/api/v1/budgets', { page_size: 200 }, signal),
  );
}

/** The open recommendations with the largest monthly saving first: plan rows only (an
 * alternative overlaps its instance's plan, whose rows already count that money). */
export function useTopRecommendations(scope: OverviewScope, count: number) {
  const query = {
    status: 'open',
    role: 'plan',
    ordering: '-saving',
    page_size: count,
    project: scope.project?.id,
  };
  return useApiData<Page<Recommendation>>([...queryKeys.recommendations, 'top', query], (signal) =>
    api.get<Page<Recommendation>>('/api/v1/recommendations', query, signal),
  );
}

export function useCloudAccounts() {
  return useApiData<Page<CloudAccount>>([...queryKeys.cloudAccounts, 'overview'], (signal) =>
    api.get<Page<CloudAccount>>('/api/v1/cloud-accounts', { page_size: 100 }, signal),
  );
}

export function useTagKeys() {
  return useApiData<Page<ProjectTagKey>>([...queryKeys.projectTagKeys, 'overview'], (signal) =>
    api.get<Page<ProjectTagKey>>('/api/v1/project-tag-keys', { page_size: 100 }, signal),
  );
}

/** The projects, to find one by its slug (the project page's address). */
export function useProjects() {
  return useApiData<Page<Project>>([...queryKeys.projects, 'all'], (signal) =>
    api.get<Page<Project>>('/api/v1/projects', { page_size: 500 }, signal),
  );
}
