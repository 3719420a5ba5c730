import { Trans, useTranslation } from 'react-i18next';
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { useMe } from '../auth/AuthContext';
import { analysisApi } from '../api/endpoints';
import type { Me, Org } from '../api/types';
import { roleLabel } from '../api/roles';
import type { AnalysisSummary, ProjectWaste } from '../api/untypedEndpoints';
import { EmptyState, ErrorBanner, Spinner } from '../components/ui';
import { PhaseSwatch, StatCard } from '../components/analysis';
import { CURRENCY_LABELS, formatDateTime } from '../format';
import { useApiData } from '../hooks';
import { compareDecimals, formatDecimal, formatMoney, formatPercent, isPositive, ratio } from '../money';
import { PHASE_LABELS, PHASES } from '../phases';
import { canManageOrg } from './settings/permissions';
import { queryKeys } from '../data/keys';
import { apiPeriod, type RangeOptions } from '../dateRange';
import { DateRangePicker, useUrlDateRange, type UrlDateRange } from '../components/DateRangePicker';

/** The summary endpoint answers at most 93 days: every preset fits. */
export const OVERVIEW_RANGE: RangeOptions = { maxDays: 93, defaultPreset: '7d' };

// ECharts is loaded only when there is something to draw, so the first page load stays small.
const CostByPhaseChart = lazy(() => import('./CostByPhaseChart'));

export function OverviewPage() {
  const me = useMe();
  const { t } = useTranslation();
  const org = me.organization;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.overview')}</h1>
          <p className="page__subtitle">
            <Trans i18nKey="overview.signedInAs" values={{ email: me.email }} components={{ email: <strong data-testid="user-email" /> }} />
          </p>
        </div>
      </header>

      {org ? (
        <section className="card org-summary" aria-label={t('shell.organization')}>
          <dl className="facts">
            <div>
              <dt>{t('shell.organization')}</dt>
              <dd data-testid="org-name">{org.name}</dd>
            </div>
            <div>
              <dt>{t('signup.timezone')}</dt>
              <dd data-testid="org-timezone">{org.timezone}</dd>
            </div>
            <div>
              <dt>{t('signup.currency')}</dt>
              <dd data-testid="org-currency" title={CURRENCY_LABELS[org.currency]}>
                {org.currency}
              </dd>
            </div>
            <div>
              <dt>{t('overview.yourRole')}</dt>
              <dd data-testid="user-role">{roleLabel(org.role)}</dd>
            </div>
          </dl>
        </section>
      ) : (
        <EmptyState title={t('common.noOrg.title')} icon="◎" testId="no-org">
          <p>
            <Trans i18nKey="overview.askForInvite" values={{ email: me.email }} components={{ strong: <strong /> }} />
          </p>
        </EmptyState>
      )}

      {org && <OrganizationOverview me={me} org={org} />}
    </div>
  );
}

/** The last 7 days of the organization (from the analysis summary), or the welcome state without data. */
function OrganizationOverview({ me, org }: { me: Me; org: Org }) {
  const { t } = useTranslation();
  const dateRange = useUrlDateRange(org.timezone, OVERVIEW_RANGE);
  const period = apiPeriod(dateRange.range);
  const summary = useApiData<AnalysisSummary>([...queryKeys.analysisSummary, 'project', period.start, period.end], (signal) =>
    analysisApi.summary('project', period, signal),
  );
  const hasData = (summary.data?.totals.instance_count ?? 0) > 0;
  // An empty answer for the default period means nothing is connected yet (the welcome); for another
  // period, only that this period is empty: the picker stays so another one can be chosen.
  const otherPeriod = dateRange.range.preset !== OVERVIEW_RANGE.defaultPreset;

  return (
    <>
      <ErrorBanner error={summary.error} onRetry={summary.reload} />
      {summary.loading && <Spinner label={t('overview.loading')} />}
      {summary.data && hasData && <FleetSummary summary={summary.data} timeZone={org.timezone} range={dateRange} />}
      {summary.data && !hasData && otherPeriod && (
        <section className="card" data-testid="overview-period-empty">
          <DateRangePicker value={dateRange} />
          <EmptyState title={t('overview.periodEmpty.title')} icon="◷">
            <p>{t('overview.periodEmpty.body')}</p>
          </EmptyState>
        </section>
      )}
      {summary.data && !hasData && !otherPeriod && (
        <EmptyState title={t('overview.welcome', { name: me.name || me.email })} icon="▦" testId="overview-empty">
          <p>
            <Trans
              i18nKey="overview.welcomeBody"
              values={{ org: org.name, currency: org.currency }}
              components={{ strong: <strong /> }}
            />
          </p>
          {canManageOrg(org.role) && (
            <p>
              <Link to="/connect" className="btn btn--primary" data-testid="overview-connect">
                {t('connect.title')}
              </Link>
            </p>
          )}
          <ol className="steps">
            <li>{t('overview.step1')}</li>
            <li>
              <Trans i18nKey="overview.step2" components={{ settings: <Link to="/settings/cloud-accounts" /> }} />
            </li>
            <li>{t('overview.step3')}</li>
          </ol>
          <p className="muted">
            <Trans
              i18nKey="overview.timezoneNote"
              values={{ timeZone: org.timezone }}
              components={{ settings: <Link to="/settings/members" /> }}
            />
          </p>
        </EmptyState>
      )}
    </>
  );
}

function byWastedMoney(a: ProjectWaste, b: ProjectWaste): number {
  return (
    compareDecimals(b.wasted_cost, a.wasted_cost) ||
    compareDecimals(b.cost, a.cost) ||
    a.project_name.localeCompare(b.project_name)
  );
}

function FleetSummary({ summary, timeZone, range }: { summary: AnalysisSummary; timeZone: string; range: UrlDateRange }) {
  const { t } = useTranslation();
  const { totals, currency } = summary;
  const money = (amount: string | null | undefined) => formatMoney(amount, currency);
  const sources = totals.cost_sources;
  const groups = [...(summary.groups ?? [])].sort(byWastedMoney);
  const pricedPhases = PHASES.filter((p) => isPositive(totals.phases[p]?.cost));

  return (
    <section className="card" aria-labelledby="fleet-title" data-testid="fleet-summary">
      <div className="section-header">
        <div>
          <h2 id="fleet-title">{t(`dateRange.preset.${range.range.preset}`)}</h2>
          <p className="muted" data-testid="fleet-period">
            {t('overview.period', {
              start: formatDateTime(summary.start, timeZone),
              end: formatDateTime(summary.end, timeZone),
              timeZone,
              count: totals.instance_count,
            })}
          </p>
        </div>
        <DateRangePicker value={range} />
      </div>

      {sources.list_price > 0 && (
        <div className="alert alert--warning" data-testid="fleet-note-list-price">
          <span>
            <Trans
              i18nKey="overview.listPriceNote"
              values={{ estimated: sources.list_price, count: totals.instance_count }}
              components={{ strong: <strong /> }}
            />
          </span>
        </div>
      )}
      {sources.unpriced > 0 && (
        <div className="alert alert--warning" data-testid="fleet-note-unpriced">
          <span>
            <Trans
              i18nKey="overview.unpricedNote"
              values={{ unpriced: sources.unpriced, count: totals.instance_count }}
              components={{ strong: <strong /> }}
            />
          </span>
        </div>
      )}

      <div className="stats">
        <StatCard label={t('common.gpuCost')} value={money(totals.cost)} testId="fleet-cost" />
        <StatCard label={t('common.gpuHours')} value={formatDecimal(totals.gpu_hours)} testId="fleet-gpu-hours" />
        <StatCard
          label={PHASE_LABELS.idle}
          tone="waste"
          value={money(totals.idle_cost)}
          detail={t('overview.idleShare', { share: formatPercent(ratio(totals.idle_cost, totals.cost)) })}
          testId="fleet-idle"
        />
        <StatCard
          label={t('common.dataBound')}
          tone="waste"
          value={money(totals.data_bound_cost)}
          detail={t('overview.dataBoundShare', { share: formatPercent(ratio(totals.data_bound_cost, totals.cost)) })}
          testId="fleet-data-bound"
        />
      </div>

      <div className="overview-grid">
        <div>
          <h3 className="subsection-title">{t('overview.costByPhase')}</h3>
          {pricedPhases.length === 0 ? (
            <p className="muted" data-testid="cost-by-phase-empty">
              {t('overview.noPricedTime')}
            </p>
          ) : (
            <>
              <Suspense fallback={<Spinner label={t('common.loadingChart')} />}>
                <CostByPhaseChart phases={totals.phases} currency={currency} />
              </Suspense>
              <ul className="phase-costs" aria-label={t('overview.costByPhase')}>
                {pricedPhases.map((p) => (
                  <li key={p} data-testid={`phase-cost-${p}`}>
                    <PhaseSwatch phase={p} />
                    <span className="phase-costs__label">{PHASE_LABELS[p]}</span>
                    <span className="phase-costs__value">{money(totals.phases[p]?.cost)}</span>
                    <span className="phase-costs__share muted">{formatPercent(ratio(totals.phases[p]?.cost, totals.cost))}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>

        {groups.length > 0 && (
          <div>
            <h3 className="subsection-title">{t('overview.byProject')}</h3>
            <table className="table table--numbers" aria-label={t('overview.byProjectLabel')}>
              <thead>
                <tr>
                  <th>{t('projects.col.project')}</th>
                  <th>{t('common.gpuHours')}</th>
                  <th>{t('overview.col.cost')}</th>
                  <th>{t('overview.col.idleCost')}</th>
                  <th>{t('overview.col.dataBoundCost')}</th>
                  <th>{t('overview.col.shareWasted')}</th>
                </tr>
              </thead>
              <tbody>
                {groups.map((g) => (
                  <tr key={g.project_id ?? 'unallocated'} data-testid={`project-waste-${g.project_id ?? 'unallocated'}`}>
                    <td>
                      {g.project_id !== null ? (
                        <Link to={`/instances?project=${g.project_id}`}>{g.project_name}</Link>
                      ) : (
                        <span className="muted">{g.project_name}</span>
                      )}
                    </td>
                    <td>{formatDecimal(g.gpu_hours)}</td>
                    <td>{money(g.cost)}</td>
                    <td>{money(g.idle_cost)}</td>
                    <td>{money(g.data_bound_cost)}</td>
                    <td>{formatPercent(ratio(g.wasted_cost, g.cost))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}
