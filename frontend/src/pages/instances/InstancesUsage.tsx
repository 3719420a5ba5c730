/**
 * The Instances table: one row per instance of the range with cost, waste and GPU utilization (average and a
 * daily sparkline), sorted and paged by the server over the whole filtered set; sort, filters, page and range
 * are in the URL.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { projectsApi, usageApi } from '../../api/endpoints';
import type { InstanceUsage, InstanceUsagePage, Page, Project } from '../../api/types';
import { DateRangePicker, useUrlDateRange } from '../../components/DateRangePicker';
import { FormField } from '../../components/FormField';
import { EmptyState, ErrorBanner, Pagination } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { DASHBOARD_RANGE, type RangeOptions } from '../../dateRange';
import { useApiData } from '../../hooks';
import { formatMoney, isPositive } from '../../money';
import { chargeTypeLabel, formatGpus, isTerminated, stateLabel, stateTone, tagEntries } from './labels';
import { Sparkline } from './Sparkline';
import { endsToday } from './sparkline';
import { TableSkeleton } from './TableSkeleton';
import {
  ariaSort,
  FILTER_KEYS,
  formatUtil,
  nextOrdering,
  PAGE_SIZE,
  readTableState,
  usageQuery,
  withFilter,
  withOrdering,
  withoutFilters,
  withPage,
  type FilterKey,
  type SortColumn,
} from './usageState';

/** The dashboard's range, the Overview's too (the API answers at most 93 days, one sparkline value a day). */
export const USAGE_RANGE: RangeOptions = DASHBOARD_RANGE;
const SELECT_FILTERS = ['instance_type', 'gpu_model', 'charge_type', 'state', 'region'] as const;
type Facets = InstanceUsagePage['facets'];
const NO_FACETS: Facets = { instance_type: [], gpu_model: [], charge_type: [], state: [], region: [] };

function useProjects(): { projects: Project[]; loaded: boolean } {
  // For the project filter only: without it the filter offers no names, the table still works.
  const projects = useApiData<Page<Project>>([...queryKeys.projects, 'all'], (signal) =>
    projectsApi.list({ page: 1, pageSize: 500 }, signal),
  );
  return { projects: projects.data?.results ?? [], loaded: !projects.loading };
}

/**
 * Older links name the project by id (`?project=3`); the table filters by slug. Such a link is rewritten to
 * the project's slug once the projects are known (a slug made of digits stays as it is).
 */
export function legacyProjectSlug(value: string | undefined, projects: readonly Project[]): string | null {
  if (!value || !/^\d+$/.test(value) || projects.some((p) => p.slug === value)) return null;
  return projects.find((p) => String(p.id) === value)?.slug ?? null;
}

function SortHeader({
  column,
  ordering,
  onSort,
  children,
  numeric,
}: {
  column: SortColumn;
  ordering: string;
  onSort: (column: SortColumn) => void;
  children: string;
  numeric?: boolean;
}) {
  const sort = ariaSort(ordering, column);
  const arrow = sort === 'descending' ? '↓' : sort === 'ascending' ? '↑' : '';
  return (
    <th aria-sort={sort} className={numeric ? 'num' : undefined}>
      <button type="button" className="sort-button" data-sort={column} onClick={() => onSort(column)}>
        {children}
        <span aria-hidden="true" className="sort-button__arrow">
          {arrow}
        </span>
      </button>
    </th>
  );
}

function UsageRow({ row, currency, partialToday }: { row: InstanceUsage; currency: string; partialToday: boolean }) {
  const { t } = useTranslation();
  const terminated = isTerminated({ state: row.state, terminated_at: null });
  const tags = tagEntries(row.tags);
  return (
    <tr className={terminated ? 'row--muted' : undefined} data-testid={`instance-${row.provider_id}`}>
      <td>
        <div className="cell-title">
          <Link to={`/instances/${row.id}`} data-testid="instance-link">
            {row.name || row.provider_id}
          </Link>
        </div>
        <code className="cell-sub">{row.provider_id}</code>
      </td>
      <td>
        {row.project ? (
          <Link to={`/projects/${row.project.slug}`}>{row.project.name}</Link>
        ) : (
          <span className="muted">{t('common.unallocated')}</span>
        )}
        {tags.length > 0 && (
          <ul className="chips" aria-label={t('instances.col.tags')}>
            {tags.map(([key, value]) => (
              <li key={key} className="chip">
                {t('instances.tag', { key, value })}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        <div>{row.instance_type}</div>
        <div className="cell-sub muted">
          {formatGpus({ gpu_count: row.gpu_count, gpu_model: row.gpu_model, gpu_memory_gb: 0 })} ·{' '}
          {chargeTypeLabel(row.charge_type)} · {row.region}
        </div>
      </td>
      <td className="num" data-testid="instance-cost">
        {formatMoney(row.cost, currency)}
      </td>
      <td className="num" data-testid="instance-waste">
        {row.waste == null ? (
          <span className="muted">—</span>
        ) : (
          <span className={isPositive(row.waste) ? 'text-danger' : undefined}>{formatMoney(row.waste, currency)}</span>
        )}
      </td>
      <td className="num">
        <div className="util-cell">
          <span data-testid="instance-util">{formatUtil(row.gpu_util_avg_pct)}</span>
          <Sparkline
            values={row.util_daily}
            scale={{ min: 0, max: 100 }}
            lastIsPartial={partialToday}
            label={t('usageTables.utilTrendOf', { name: row.name || row.provider_id })}
          />
        </div>
      </td>
      <td>
        <span className={`badge badge--${stateTone({ state: row.state, terminated_at: null })}`}>{stateLabel(row.state)}</span>
      </td>
    </tr>
  );
}

/** Free-text filters apply on submit (Enter or the button), not on every keystroke. */
function TextFilters({ filters, onApply }: { filters: Partial<Record<FilterKey, string>>; onApply: (values: Record<string, string>) => void }) {
  const { t } = useTranslation();
  const formRef = useRef<HTMLFormElement>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const data = new FormData(formRef.current!);
    onApply(Object.fromEntries(['search', 'tag', 'util_min', 'util_max'].map((k) => [k, String(data.get(k) ?? '')])));
  };
  // A key per URL value: the inputs show the URL's values again after a back/forward or "Clear".
  const key = ['search', 'tag', 'util_min', 'util_max'].map((k) => filters[k as FilterKey] ?? '').join('|');
  return (
    <form ref={formRef} key={key} className="filters" onSubmit={submit} aria-label={t('usageTables.searchForm')}>
      <FormField id="filter-search" label={t('usageTables.search')}>
        {(control) => <input {...control} name="search" type="search" defaultValue={filters.search ?? ''} placeholder={t('usageTables.searchHint')} />}
      </FormField>
      <FormField id="filter-tag" label={t('usageTables.tag')}>
        {(control) => <input {...control} name="tag" defaultValue={filters.tag ?? ''} placeholder={t('usageTables.tagHint')} />}
      </FormField>
      <FormField id="filter-util-min" label={t('usageTables.utilMin')}>
        {(control) => <input {...control} name="util_min" type="number" min={0} max={100} defaultValue={filters.util_min ?? ''} />}
      </FormField>
      <FormField id="filter-util-max" label={t('usageTables.utilMax')}>
        {(control) => <input {...control} name="util_max" type="number" min={0} max={100} defaultValue={filters.util_max ?? ''} />}
      </FormField>
      <div className="field field--button">
        <button type="submit" className="btn">
          {t('usageTables.apply')}
        </button>
      </div>
    </form>
  );
}

export function InstancesUsage({ timeZone }: { timeZone: string }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const dateRange = useUrlDateRange(timeZone, USAGE_RANGE);
  const state = readTableState(params);
  const { projects, loaded: projectsLoaded } = useProjects();
  const legacySlug = legacyProjectSlug(state.filters.project, projects);
  const waitForProjects = Boolean(state.filters.project && /^\d+$/.test(state.filters.project) && !projectsLoaded);
  const query = usageQuery(state, dateRange.range);
  const data = useApiData<InstanceUsagePage>([...queryKeys.usageInstances, query], (signal) => usageApi.instances(query, signal), {
    enabled: !waitForProjects && legacySlug === null,
  });
  useEffect(() => {
    if (legacySlug) setParams(withFilter(params, 'project', legacySlug), { replace: true });
  }, [legacySlug, params, setParams]);
  // While another sort, filter or page loads, the last answer stays on screen (dimmed) rather than
  // flashing to a skeleton: the header buttons keep their place and focus.
  const [last, setLast] = useState<InstanceUsagePage | null>(null);
  if (data.data && data.data !== last) setLast(data.data);
  const facets: Facets = last?.facets ?? NO_FACETS;

  const go = (next: URLSearchParams) => setParams(next, { replace: true });
  const setFilter = (key: FilterKey, value: string) => go(withFilter(params, key, value));
  const applyText = (values: Record<string, string>) => {
    let next = params;
    for (const [key, value] of Object.entries(values)) next = withFilter(next, key as FilterKey, value);
    go(next);
  };
  const onSort = (column: SortColumn) => go(withOrdering(params, nextOrdering(state.ordering, column)));
  const filtered = FILTER_KEYS.some((k) => state.filters[k]);
  const page = data.data ?? (data.loading ? last : null);
  // The range ends today: each row's last day of utilization is the day so far.
  const partialToday = page ? endsToday(page.days, page.timezone) : false;
  const refreshing = data.loading && page !== null;
  const nothingAtAll = data.data !== null && data.data.count === 0 && !filtered;

  const options = (key: (typeof SELECT_FILTERS)[number]) => {
    const values = [...facets[key]];
    const current = state.filters[key];
    if (current && !values.includes(current)) values.push(current);
    return values;
  };
  const optionLabel = (key: (typeof SELECT_FILTERS)[number], value: string) =>
    key === 'charge_type' ? chargeTypeLabel(value) : key === 'state' ? stateLabel(value) : value;
  const selectLabels: Record<(typeof SELECT_FILTERS)[number], string> = {
    instance_type: t('usageTables.instanceType'),
    gpu_model: t('usageTables.gpuModel'),
    charge_type: t('instances.billing'),
    state: t('instances.state'),
    region: t('instances.region'),
  };

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.instances')}</h1>
          <p className="page__subtitle">{t('usageTables.instancesSubtitle')}</p>
        </div>
        <DateRangePicker value={dateRange} />
      </header>

      <div className="filters" role="search" aria-label={t('instances.filter')}>
        <FormField id="filter-project" label={t('projects.col.project')}>
          {(control) => (
            <select {...control} value={state.filters.project ?? ''} onChange={(e) => setFilter('project', e.target.value)}>
              <option value="">{t('instances.allProjects')}</option>
              {projects.map((p) => (
                <option key={p.id} value={p.slug}>
                  {p.name}
                </option>
              ))}
              {state.filters.project && !projects.some((p) => p.slug === state.filters.project) && (
                <option value={state.filters.project}>{state.filters.project}</option>
              )}
            </select>
          )}
        </FormField>
        {SELECT_FILTERS.map((key) => (
          <FormField key={key} id={`filter-${key}`} label={selectLabels[key]}>
            {(control) => (
              <select {...control} value={state.filters[key] ?? ''} onChange={(e) => setFilter(key, e.target.value)}>
                <option value="">{t('usageTables.all')}</option>
                {options(key).map((value) => (
                  <option key={value} value={value}>
                    {optionLabel(key, value)}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        ))}
        {filtered && (
          <div className="field field--button">
            <button type="button" className="btn btn--ghost" onClick={() => go(withoutFilters(params))}>
              {t('instances.clearFilters')}
            </button>
          </div>
        )}
      </div>
      <TextFilters filters={state.filters} onApply={applyText} />

      <ErrorBanner error={data.error} onRetry={data.reload} />

      {nothingAtAll ? (
        <EmptyState title={t('instances.empty.title')} icon="▣" testId="instances-empty">
          <p>{t('usageTables.instancesEmpty')}</p>
          <p className="muted">
            <Trans i18nKey="instances.empty.connect" components={{ settings: <Link to="/settings/cloud-accounts" /> }} />
          </p>
        </EmptyState>
      ) : data.loading && !page ? (
        <TableSkeleton label={t('instances.loading')} testId="instances-loading" />
      ) : (
        page && (
          <>
            <table
              className={refreshing ? 'table table--refreshing' : 'table'}
              data-testid="instances-table"
              aria-label={t('nav.instances')}
              aria-busy={refreshing}
            >
              <thead>
                <tr>
                  <SortHeader column="name" ordering={state.ordering} onSort={onSort}>
                    {t('instances.col.instance')}
                  </SortHeader>
                  <th>{t('projects.col.project')}</th>
                  <th>{t('instances.col.type')}</th>
                  <SortHeader column="cost" ordering={state.ordering} onSort={onSort} numeric>
                    {t('usageTables.cost')}
                  </SortHeader>
                  <SortHeader column="waste" ordering={state.ordering} onSort={onSort} numeric>
                    {t('usageTables.waste')}
                  </SortHeader>
                  <SortHeader column="util" ordering={state.ordering} onSort={onSort} numeric>
                    {t('usageTables.util')}
                  </SortHeader>
                  <th>{t('instances.state')}</th>
                </tr>
              </thead>
              <tbody>
                {page.results.length === 0 && (
                  <tr>
                    <td colSpan={7} className="table__empty">
                      {t('instances.noMatch')}
                    </td>
                  </tr>
                )}
                {page.results.map((row) => (
                  <UsageRow key={row.id} row={row} currency={page.currency} partialToday={partialToday} />
                ))}
              </tbody>
            </table>
            <Pagination page={state.page} pageSize={PAGE_SIZE} count={page.count} onPage={(n) => go(withPage(params, n))} />
          </>
        )
      )}
    </div>
  );
}
