import { Trans, useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useMe } from '../auth/AuthContext';
import { instancesApi, projectsApi } from '../api/endpoints';
import type { ChargeType, Instance, InstanceFilters, Page, Project } from '../api/types';
import { CHARGE_TYPE_LABELS, INSTANCE_STATE_LABELS, TENCENT_REGIONS } from '../api/cloudChoices';
import { useApiData, usePaginatedList } from '../hooks';
import { EmptyState, ErrorBanner, NoOrganization, Pagination, Spinner } from '../components/ui';
import { FormField } from '../components/FormField';
import { formatDate, formatNumber } from '../format';
import { queryKeys } from '../data/keys';
import { i18n } from '../i18n';

const FILTER_KEYS = ['region', 'charge_type', 'state', 'project'] as const satisfies readonly (keyof InstanceFilters)[];
type FilterKey = (typeof FILTER_KEYS)[number];

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

function stateLabel(state: string): string {
  return INSTANCE_STATE_LABELS[state] ?? state.charAt(0) + state.slice(1).toLowerCase().replace(/_/g, ' ');
}

function stateTone(instance: Instance): string {
  if (isTerminated(instance)) return 'muted';
  if (instance.state === 'RUNNING') return 'success';
  if (instance.state === 'LAUNCH_FAILED') return 'danger';
  if (instance.state === 'STOPPED' || instance.state === 'SHUTDOWN') return 'muted';
  return 'info';
}

/** Projects for the filter. Optional: without them the page still works, just without that filter's names. */
function useProjects(): Project[] {
  // For the filter only: on an error it falls back to "All projects"; the instance list shows its own errors.
  const projects = useApiData<Page<Project>>([...queryKeys.projects, 'all'], (signal) =>
    projectsApi.list({ page: 1, pageSize: 500 }, signal),
  );
  return projects.data?.results ?? [];
}

/**
 * Tencent Cloud tags are key -> value strings, but the schema leaves `tags` untyped (a JSONField without a
 * declared shape), so anything that is not an object shows as no tags rather than breaking the row.
 */
export function tagEntries(tags: unknown): [string, string][] {
  if (tags === null || typeof tags !== 'object' || Array.isArray(tags)) return [];
  return Object.entries(tags).map(([key, value]) => [key, String(value)]);
}

function InstanceRow({ instance, timeZone }: { instance: Instance; timeZone: string }) {
  const terminated = isTerminated(instance);
  const tags = tagEntries(instance.tags);
  const { t } = useTranslation();
  return (
    <tr className={terminated ? 'row--muted' : undefined} data-testid={`instance-${instance.provider_id}`}>
      <td>
        <div className="cell-title">
          <Link to={`/instances/${instance.id}`}>{instance.name || instance.provider_id}</Link>
        </div>
        <code className="cell-sub">{instance.provider_id}</code>
      </td>
      <td>
        <div>{instance.instance_type}</div>
        <div className="cell-sub muted">
          {t('instances.typeLine', { cpu: instance.cpu_cores, memory: instance.memory_gb, zone: instance.zone || instance.region })}
        </div>
      </td>
      <td>{formatGpus(instance)}</td>
      <td>
        <div>{chargeTypeLabel(instance.charge_type)}</div>
        {instance.expires_at && !terminated && (
          <div className="cell-sub muted">{t('instances.expires', { date: formatDate(instance.expires_at, timeZone) })}</div>
        )}
      </td>
      <td>
        <span
          className={`badge badge--${stateTone(instance)}`}
          title={terminated && instance.terminated_at ? t('instances.terminatedOn', { date: formatDate(instance.terminated_at, timeZone) }) : undefined}
        >
          {terminated ? INSTANCE_STATE_LABELS.TERMINATED : stateLabel(instance.state)}
        </span>
      </td>
      <td>{instance.project ?? <span className="muted">{t('common.unallocated')}</span>}</td>
      <td>
        {tags.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          <ul className="chips" aria-label={t('instances.col.tags')}>
            {tags.map(([key, value]) => (
              <li key={key} className="chip">
                {t('instances.tag', { key, value })}
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}

export function InstancesPage() {
  const me = useMe();
  const { t } = useTranslation();
  if (!me.organization) {
    return (
      <div className="page">
        <header className="page__header">
          <h1>{t('nav.instances')}</h1>
        </header>
        <NoOrganization />
      </div>
    );
  }
  return <InstancesList timeZone={me.organization.timezone} />;
}

function InstancesList({ timeZone }: { timeZone: string }) {
  const [params, setParams] = useSearchParams();
  const projects = useProjects();
  const { t } = useTranslation();

  const filters: InstanceFilters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value) filters[key] = value;
  }
  const filterKey = FILTER_KEYS.map((k) => `${k}=${filters[k] ?? ''}`).join('&');
  const filtered = Object.keys(filters).length > 0;

  const list = usePaginatedList<Instance>([...queryKeys.instances, filterKey], (q, signal) =>
    instancesApi.list(q, filters, signal),
  50);

  const setFilter = (key: FilterKey, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  const clearFilters = () => setParams(new URLSearchParams(), { replace: true });

  // A region or project from the URL that the lists do not know still shows as selected.
  const regionCodes = TENCENT_REGIONS.map((r) => r.code);
  const projectKnown = !filters.project || projects.some((p) => String(p.id) === filters.project);

  const noInstancesAtAll = !list.loading && !list.error && list.count === 0 && !filtered;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.instances')}</h1>
          <p className="page__subtitle">{t('instances.subtitle')}</p>
        </div>
      </header>

      {noInstancesAtAll ? (
        <EmptyState title={t('instances.empty.title')} icon="▣" testId="instances-empty">
          <p>{t('instances.empty.body')}</p>
          <p className="muted">
            <Trans i18nKey="instances.empty.connect" components={{ settings: <Link to="/settings/cloud-accounts" /> }} />
          </p>
        </EmptyState>
      ) : (
        <>
          <div className="filters" role="search" aria-label={t('instances.filter')}>
            <FormField id="filter-region" label={t('instances.region')}>
              {(control) => (
                <select {...control} value={filters.region ?? ''} onChange={(e) => setFilter('region', e.target.value)}>
                  <option value="">{t('instances.allRegions')}</option>
                  {TENCENT_REGIONS.map((r) => (
                    <option key={r.code} value={r.code}>
                      {t('cloudAccounts.regionLabel', { city: r.city, code: r.code })}
                    </option>
                  ))}
                  {filters.region && !regionCodes.includes(filters.region) && (
                    <option value={filters.region}>{filters.region}</option>
                  )}
                </select>
              )}
            </FormField>
            <FormField id="filter-charge-type" label={t('instances.billing')}>
              {(control) => (
                <select {...control} value={filters.charge_type ?? ''} onChange={(e) => setFilter('charge_type', e.target.value)}>
                  <option value="">{t('instances.allBilling')}</option>
                  {Object.entries(CHARGE_TYPE_LABELS).map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                  {filters.charge_type && !(filters.charge_type in CHARGE_TYPE_LABELS) && (
                    <option value={filters.charge_type}>{filters.charge_type}</option>
                  )}
                </select>
              )}
            </FormField>
            <FormField id="filter-state" label={t('instances.state')}>
              {(control) => (
                <select {...control} value={filters.state ?? ''} onChange={(e) => setFilter('state', e.target.value)}>
                  <option value="">{t('instances.allStates')}</option>
                  {Object.entries(INSTANCE_STATE_LABELS).map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                  {filters.state && !(filters.state in INSTANCE_STATE_LABELS) && (
                    <option value={filters.state}>{filters.state}</option>
                  )}
                </select>
              )}
            </FormField>
            <FormField id="filter-project" label={t('projects.col.project')}>
              {(control) => (
                <select {...control} value={filters.project ?? ''} onChange={(e) => setFilter('project', e.target.value)}>
                  <option value="">{t('instances.allProjects')}</option>
                  {projects.map((p) => (
                    <option key={p.id} value={String(p.id)}>
                      {p.name}
                    </option>
                  ))}
                  {!projectKnown && <option value={filters.project}>{t('instances.projectNumber', { id: filters.project })}</option>}
                </select>
              )}
            </FormField>
            {filtered && (
              <div className="field field--button">
                <button type="button" className="btn btn--ghost" onClick={clearFilters}>
                  {t('instances.clearFilters')}
                </button>
              </div>
            )}
          </div>

          <ErrorBanner error={list.error} onRetry={list.reload} />

          {list.loading && list.items.length === 0 ? (
            <Spinner label={t('instances.loading')} />
          ) : (
            !list.error && (
              <table className="table" aria-label={t('nav.instances')}>
                <thead>
                  <tr>
                    <th>{t('instances.col.instance')}</th>
                    <th>{t('instances.col.type')}</th>
                    <th>{t('instances.col.gpus')}</th>
                    <th>{t('instances.billing')}</th>
                    <th>{t('instances.state')}</th>
                    <th>{t('projects.col.project')}</th>
                    <th>{t('instances.col.tags')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.items.length === 0 && (
                    <tr>
                      <td colSpan={7} className="table__empty">
                        {t('instances.noMatch')}
                      </td>
                    </tr>
                  )}
                  {list.items.map((instance) => (
                    <InstanceRow key={instance.id} instance={instance} timeZone={timeZone} />
                  ))}
                </tbody>
              </table>
            )
          )}
          <Pagination page={list.page} pageSize={list.pageSize} count={list.count} onPage={list.setPage} disabled={list.loading} />
        </>
      )}
    </div>
  );
}
