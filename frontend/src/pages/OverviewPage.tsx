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

// ECharts is loaded only when there is something to draw, so the first page load stays small.
const CostByPhaseChart = lazy(() => import('./CostByPhaseChart'));

export function OverviewPage() {
  const me = useMe();
  const org = me.organization;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>Overview</h1>
          <p className="page__subtitle">
            Signed in as <strong data-testid="user-email">{me.email}</strong>
          </p>
        </div>
      </header>

      {org ? (
        <section className="card org-summary" aria-label="Organization">
          <dl className="facts">
            <div>
              <dt>Organization</dt>
              <dd data-testid="org-name">{org.name}</dd>
            </div>
            <div>
              <dt>Timezone</dt>
              <dd data-testid="org-timezone">{org.timezone}</dd>
            </div>
            <div>
              <dt>Currency</dt>
              <dd data-testid="org-currency" title={CURRENCY_LABELS[org.currency]}>
                {org.currency}
              </dd>
            </div>
            <div>
              <dt>Your role</dt>
              <dd data-testid="user-role">{roleLabel(org.role)}</dd>
            </div>
          </dl>
        </section>
      ) : (
        <EmptyState title="You are not in an organization yet" icon="◎" testId="no-org">
          <p>
            Ask an owner or admin of your team to invite <strong>{me.email}</strong>, then accept the invitation from
            the e-mail you receive.
          </p>
        </EmptyState>
      )}

      {org && <OrganizationOverview me={me} org={org} />}
    </div>
  );
}

/** The last 7 days of the organization (from the analysis summary), or the welcome state without data. */
function OrganizationOverview({ me, org }: { me: Me; org: Org }) {
  // The API's default period is the last 7 days up to the current hour.
  const summary = useApiData<AnalysisSummary>([...queryKeys.analysisSummary, 'project'], (signal) =>
    analysisApi.summary('project', {}, signal),
  );
  const hasData = (summary.data?.totals.instance_count ?? 0) > 0;

  return (
    <>
      <ErrorBanner error={summary.error} onRetry={summary.reload} />
      {summary.loading && <Spinner label="Loading GPU spend…" />}
      {summary.data && hasData && <FleetSummary summary={summary.data} timeZone={org.timezone} />}
      {summary.data && !hasData && (
        <EmptyState title={`Welcome to GPU Ledger, ${me.name || me.email}`} icon="▦" testId="overview-empty">
          <p>
            Connect a Tencent Cloud account to <strong>{org.name}</strong> and this page fills with your GPU spend and
            utilization: daily cost in {org.currency}, how busy each card is, and where money goes to idle GPUs.
          </p>
          {canManageOrg(org.role) && (
            <p>
              <Link to="/connect" className="btn btn--primary" data-testid="overview-connect">
                Connect a Tencent Cloud account
              </Link>
            </p>
          )}
          <ol className="steps">
            <li>Create a read-only CAM sub-account key in the Tencent Cloud console.</li>
            <li>
              Connect it to this organization in <Link to="/settings/cloud-accounts">Settings → Cloud accounts</Link>;
              instances, tags and bills are synced automatically.
            </li>
            <li>After the first sync, spend and utilization charts and savings recommendations appear here.</li>
          </ol>
          <p className="muted">
            Days and months are computed in {org.timezone}. Invite your team from{' '}
            <Link to="/settings/members">Settings</Link>.
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

function FleetSummary({ summary, timeZone }: { summary: AnalysisSummary; timeZone: string }) {
  const { totals, currency } = summary;
  const money = (amount: string | null | undefined) => formatMoney(amount, currency);
  const sources = totals.cost_sources;
  const groups = [...(summary.groups ?? [])].sort(byWastedMoney);
  const pricedPhases = PHASES.filter((p) => isPositive(totals.phases[p]?.cost));

  return (
    <section className="card" aria-labelledby="fleet-title" data-testid="fleet-summary">
      <div className="section-header">
        <div>
          <h2 id="fleet-title">Last 7 days</h2>
          <p className="muted" data-testid="fleet-period">
            {formatDateTime(summary.start, timeZone)} – {formatDateTime(summary.end, timeZone)} ({timeZone}) ·{' '}
            {totals.instance_count} GPU {totals.instance_count === 1 ? 'instance' : 'instances'}
          </p>
        </div>
      </div>

      {sources.list_price > 0 && (
        <div className="alert alert--warning" data-testid="fleet-note-list-price">
          <span>
            Costs of {sources.list_price} of {totals.instance_count} instances are <strong>estimated from list prices</strong>{' '}
            (no bill yet).
          </span>
        </div>
      )}
      {sources.unpriced > 0 && (
        <div className="alert alert--warning" data-testid="fleet-note-unpriced">
          <span>
            {sources.unpriced} of {totals.instance_count} instances have <strong>no known price</strong>: their GPU-hours
            are counted, their money is not.
          </span>
        </div>
      )}

      <div className="stats">
        <StatCard label="GPU cost" value={money(totals.cost)} testId="fleet-cost" />
        <StatCard label="GPU-hours" value={formatDecimal(totals.gpu_hours)} testId="fleet-gpu-hours" />
        <StatCard
          label="Idle"
          tone="waste"
          value={money(totals.idle_cost)}
          detail={`${formatPercent(ratio(totals.idle_cost, totals.cost))} of cost on idle GPUs`}
          testId="fleet-idle"
        />
        <StatCard
          label="Data-bound"
          tone="waste"
          value={money(totals.data_bound_cost)}
          detail={`${formatPercent(ratio(totals.data_bound_cost, totals.cost))} of cost on GPUs waiting for data`}
          testId="fleet-data-bound"
        />
      </div>

      <div className="overview-grid">
        <div>
          <h3 className="subsection-title">Cost by phase</h3>
          {pricedPhases.length === 0 ? (
            <p className="muted" data-testid="cost-by-phase-empty">
              No priced GPU time in this period.
            </p>
          ) : (
            <>
              <Suspense fallback={<Spinner label="Loading chart…" />}>
                <CostByPhaseChart phases={totals.phases} currency={currency} />
              </Suspense>
              <ul className="phase-costs" aria-label="Cost by phase">
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
            <h3 className="subsection-title">By project, most wasted money first</h3>
            <table className="table table--numbers" aria-label="Projects by wasted money">
              <thead>
                <tr>
                  <th>Project</th>
                  <th>GPU-hours</th>
                  <th>Cost</th>
                  <th>Idle cost</th>
                  <th>Data-bound cost</th>
                  <th>Share wasted</th>
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
