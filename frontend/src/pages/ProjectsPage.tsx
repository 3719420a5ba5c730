/**
 * The Projects table: per project (and the Unallocated share) the range's spend with its daily trend,
 * GPU-hours, average GPU utilization, idle waste and the month's budget use. Each project links to its page.
 * Project names and tag values come from `/projects`, budgets from `/budgets` (joined here by project id).
 */
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useMe } from '../auth/AuthContext';
import { budgetsApi, projectsApi, usageApi } from '../api/endpoints';
import type { Budget, Page, Project, ProjectUsage, ProjectUsageList } from '../api/types';
import { DateRangePicker, useUrlDateRange } from '../components/DateRangePicker';
import { EmptyState, ErrorBanner, NoOrganization } from '../components/ui';
import { queryKeys } from '../data/keys';
import { formatNumber } from '../format';
import { useApiData } from '../hooks';
import { formatMoney, isPositive } from '../money';
import { Sparkline } from './instances/Sparkline';
import { endsToday, moneySeries } from './instances/sparkline';
import { TableSkeleton } from './instances/TableSkeleton';
import { formatUtil } from './instances/usageState';
import { USAGE_RANGE } from './instances/InstancesUsage';
import { budgetUseByProject, type BudgetUse } from './projects/budgetUse';

function BudgetCell({ use }: { use: BudgetUse | undefined }) {
  const { t } = useTranslation();
  if (!use) return <span className="muted">{t('usageTables.noBudget')}</span>;
  const pct = use.usedPct;
  return (
    <div data-testid="project-budget">
      <div>
        {pct == null
          ? '—'
          : t('usageTables.budgetUsed', { pct: formatNumber(Math.round(pct)), amount: formatMoney(use.budget.amount, use.budget.currency ?? '') })}
      </div>
      {pct != null && (
        <span className={pct >= 100 ? 'budget-bar budget-bar--over' : 'budget-bar'} aria-hidden="true">
          <span style={{ width: `${Math.min(100, Math.max(0, pct))}%` }} />
        </span>
      )}
    </div>
  );
}

function ProjectRow({
  row,
  project,
  budget,
  currency,
  partialToday,
}: {
  row: ProjectUsage;
  project: Project | undefined;
  budget: BudgetUse | undefined;
  currency: string;
  /** The range ends today: the trend's last day is not over. */
  partialToday: boolean;
}) {
  const { t } = useTranslation();
  const name = row.slug ? row.name : t('common.unallocated');
  return (
    <tr data-testid={`project-${row.slug ?? 'unallocated'}`}>
      <td>
        <div className="cell-title">
          {row.slug ? (
            <Link to={`/projects/${row.slug}`} data-testid="project-link">
              {row.name}
            </Link>
          ) : (
            name
          )}
        </div>
        {row.slug && <code className="cell-sub">{row.slug}</code>}
        {project && project.tag_values.length > 0 && (
          <ul className="chips" aria-label={t('projects.tagValuesOf', { name: project.name })}>
            {project.tag_values.map((value) => (
              <li key={value} className="chip">
                {value}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td className="num" data-testid="project-spend">
        {formatMoney(row.cost, currency)}
      </td>
      <td>
        <Sparkline values={moneySeries(row.cost_daily)} lastIsPartial={partialToday} label={t('usageTables.spendTrendOf', { name })} />
      </td>
      <td className="num">{formatNumber(Math.round(row.gpu_hours * 10) / 10)}</td>
      <td className="num">{formatUtil(row.gpu_util_avg_pct)}</td>
      <td className="num">
        <span className={isPositive(row.waste) ? 'text-danger' : undefined}>{formatMoney(row.waste, currency)}</span>
      </td>
      <td>{row.slug ? <BudgetCell use={budget} /> : <span className="muted">—</span>}</td>
      <td className="table__actions">
        {row.slug && (
          <Link to={`/instances?project=${encodeURIComponent(row.slug)}`} aria-label={t('projects.instancesOf', { name: row.name })}>
            {t('projects.viewInstances')}
          </Link>
        )}
      </td>
    </tr>
  );
}

function ProjectsTable({ timeZone }: { timeZone: string }) {
  const { t } = useTranslation();
  const dateRange = useUrlDateRange(timeZone, USAGE_RANGE);
  const period = { start: dateRange.range.from, end: dateRange.range.to };
  const usage = useApiData<ProjectUsageList>([...queryKeys.usageProjects, period], (signal) => usageApi.projects(period, signal));
  // Names, tag values and ids (budgets name projects by id); optional: the table works without them.
  const projects = useApiData<Page<Project>>([...queryKeys.projects, 'all'], (signal) =>
    projectsApi.list({ page: 1, pageSize: 500 }, signal),
  );
  const budgets = useApiData<Page<Budget>>([...queryKeys.budgets, 'all'], (signal) => budgetsApi.list({ page: 1, pageSize: 500 }, signal));
  const bySlug = new Map((projects.data?.results ?? []).map((p) => [p.slug, p]));
  const budgetUses = budgetUseByProject(budgets.data?.results ?? [], usage.data?.currency ?? '');
  const rows = usage.data?.results ?? [];
  const partialToday = usage.data ? endsToday(usage.data.days, usage.data.timezone) : false;
  const noProjects = usage.data !== null && rows.every((r) => r.slug === null) && projects.data?.count === 0;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.projects')}</h1>
          <p className="page__subtitle">{t('usageTables.projectsSubtitle')}</p>
        </div>
        <DateRangePicker value={dateRange} />
      </header>
      <ErrorBanner error={usage.error} onRetry={usage.reload} />
      {noProjects ? (
        <EmptyState title={t('projects.empty.title')} icon="▤" testId="projects-empty">
          <p>{t('projects.empty.body')}</p>
          <p className="muted">
            <Trans i18nKey="projects.empty.connect" components={{ settings: <Link to="/settings/cloud-accounts" /> }} />
          </p>
        </EmptyState>
      ) : usage.loading ? (
        <TableSkeleton label={t('projects.loading')} testId="projects-loading" />
      ) : (
        usage.data && (
          <table className="table" data-testid="projects-table" aria-label={t('nav.projects')}>
            <thead>
              <tr>
                <th>{t('projects.col.project')}</th>
                <th className="num">{t('usageTables.spend')}</th>
                <th>{t('usageTables.trend')}</th>
                <th className="num">{t('usageTables.gpuHours')}</th>
                <th className="num">{t('usageTables.util')}</th>
                <th className="num">{t('usageTables.waste')}</th>
                <th>{t('usageTables.budget')}</th>
                <th className="table__actions">{t('nav.instances')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const project = row.slug ? bySlug.get(row.slug) : undefined;
                return (
                  <ProjectRow
                    key={row.slug ?? ''}
                    row={row}
                    project={project}
                    budget={project ? budgetUses.get(project.id) : undefined}
                    currency={usage.data!.currency}
                    partialToday={partialToday}
                  />
                );
              })}
            </tbody>
          </table>
        )
      )}
    </div>
  );
}

export function ProjectsPage() {
  const { t } = useTranslation();
  const me = useMe();
  if (!me.organization) {
    return (
      <div className="page">
        <header className="page__header">
          <h1>{t('nav.projects')}</h1>
        </header>
        <NoOrganization />
      </div>
    );
  }
  return <ProjectsTable timeZone={me.organization.timezone} />;
}
