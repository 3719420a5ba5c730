import { lazy, Suspense, useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useMe } from '../auth/AuthContext';
import { instancesApi } from '../api/endpoints';
import type { Instance, Org } from '../api/types';
import type { InstancePhases, InstanceProfile } from '../api/untypedEndpoints';
import { useApiData } from '../hooks';
import { EmptyState, ErrorBanner, NoOrganization, Spinner } from '../components/ui';
import { CostSourceNote, PhaseLegend, PhaseSwatch, StatCard } from '../components/analysis';
import { formatDateTime, formatRelative } from '../format';
import { formatDecimal, formatMoney, formatPercent, ratio, sumDecimals } from '../money';
import { formatMinutes, PHASE_LABELS, PHASES } from '../phases';
import { chargeTypeLabel, formatGpus, isTerminated } from './InstancesPage';
import { HourOfWeekHeatmap } from './HourOfWeekHeatmap';
import { queryKeys } from '../data/keys';

// ECharts is loaded only when there is a timeline to draw.
const PhaseTimelineChart = lazy(() => import('./PhaseTimelineChart'));

export const PERIODS = [
  { key: '24h', label: 'Last 24 hours', days: 1 },
  { key: '7d', label: 'Last 7 days', days: 7 },
  { key: '31d', label: 'Last 31 days', days: 31 },
] as const;
type PeriodKey = (typeof PERIODS)[number]['key'];
const DEFAULT_PERIOD: PeriodKey = '24h';

const HOUR_MS = 3_600_000;

function isoMinute(ms: number): string {
  return new Date(ms).toISOString().replace(/:\d\d\.\d{3}Z$/, ':00Z');
}

/** The last `days` days up to the start of the current hour (like the API's default), as ISO UTC. */
export function periodRange(days: number, now: number = Date.now()): { start: string; end: string } {
  const end = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { start: isoMinute(end - days * 24 * HOUR_MS), end: isoMinute(end) };
}

export function InstanceDetailPage() {
  const me = useMe();
  const { id = '' } = useParams();
  if (!me.organization) {
    return (
      <div className="page">
        <header className="page__header">
          <h1>Instance</h1>
        </header>
        <NoOrganization />
      </div>
    );
  }
  if (!/^\d+$/.test(id)) return <InstanceNotFound />;
  return <InstanceDetail key={id} id={Number(id)} org={me.organization} />;
}

function InstanceNotFound() {
  return (
    <div className="page">
      <BackLink />
      <EmptyState
        title="Instance not found"
        icon="?"
        testId="instance-not-found"
        action={
          <Link className="btn" to="/instances">
            All instances
          </Link>
        }
      >
        <p>This instance does not exist in this organization. It may belong to another organization, or the link is wrong.</p>
      </EmptyState>
    </div>
  );
}

function BackLink() {
  return (
    <p className="breadcrumb">
      <Link to="/instances">← Instances</Link>
    </p>
  );
}

function InstanceDetail({ id, org }: { id: number; org: Org }) {
  const [params, setParams] = useSearchParams();
  const periodKey: PeriodKey = PERIODS.find((p) => p.key === params.get('period'))?.key ?? DEFAULT_PERIOD;
  const days = PERIODS.find((p) => p.key === periodKey)!.days;
  const range = useMemo(() => periodRange(days), [days]);

  const instance = useApiData<Instance>([...queryKeys.instance(id), 'detail'], (signal) => instancesApi.get(id, signal));
  const phases = useApiData<InstancePhases>([...queryKeys.instance(id), 'phases', range.start, range.end], (signal) =>
    instancesApi.phases(id, range, signal),
  );
  const profile = useApiData<InstanceProfile>([...queryKeys.instance(id), 'profile'], (signal) => instancesApi.profile(id, signal));

  if (instance.error?.status === 404) return <InstanceNotFound />;

  const setPeriod = (key: PeriodKey) => {
    const next = new URLSearchParams(params);
    if (key === DEFAULT_PERIOD) next.delete('period');
    else next.set('period', key);
    setParams(next, { replace: true });
  };

  return (
    <div className="page">
      <BackLink />
      {instance.data ? (
        <InstanceHeader instance={instance.data} />
      ) : (
        <header className="page__header">
          <h1>Instance</h1>
        </header>
      )}
      <ErrorBanner error={instance.error} onRetry={instance.reload} />
      {instance.loading && <Spinner label="Loading instance…" />}
      {instance.data && <InstanceFacts instance={instance.data} timeZone={org.timezone} />}

      <section className="card" aria-labelledby="phases-title">
        <div className="section-header">
          <div>
            <h2 id="phases-title">Utilization by phase</h2>
            {phases.data && (
              <p className="muted" data-testid="phases-period">
                {formatDateTime(phases.data.start, org.timezone)} – {formatDateTime(phases.data.end, org.timezone)} (
                {org.timezone})
              </p>
            )}
          </div>
          <div className="segmented" role="group" aria-label="Period">
            {PERIODS.map((p) => (
              <button
                key={p.key}
                type="button"
                className={`btn btn--small${p.key === periodKey ? ' btn--selected' : ''}`}
                aria-pressed={p.key === periodKey}
                onClick={() => setPeriod(p.key)}
              >
                {p.label}
              </button>
            ))}
          </div>
        </div>
        <ErrorBanner error={phases.error} onRetry={phases.reload} />
        {phases.loading && <Spinner label="Loading phases…" />}
        {phases.data && <PhasesBody data={phases.data} timeZone={org.timezone} />}
      </section>

      <section className="card" aria-labelledby="profile-title">
        <h2 id="profile-title" className="card__title">
          Hour-of-week profile
        </h2>
        <ErrorBanner error={profile.error} onRetry={profile.reload} />
        {profile.loading && <Spinner label="Loading profile…" />}
        {profile.data && <ProfileBody profile={profile.data} orgTimeZone={org.timezone} />}
      </section>
    </div>
  );
}

function InstanceHeader({ instance }: { instance: Instance }) {
  const terminated = isTerminated(instance);
  return (
    <header className="page__header">
      <div>
        <h1>
          {instance.name || instance.provider_id}
          {terminated && <span className="badge badge--muted">Terminated</span>}
        </h1>
        <p className="page__subtitle">
          <code>{instance.provider_id}</code> · {instance.zone || instance.region}
        </p>
      </div>
    </header>
  );
}

function InstanceFacts({ instance, timeZone }: { instance: Instance; timeZone: string }) {
  return (
    <section className="card" aria-label="Instance">
      <dl className="facts facts--small instance-facts">
        <div>
          <dt>Provider ID</dt>
          <dd data-testid="fact-provider-id">
            <code>{instance.provider_id}</code>
          </dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd data-testid="fact-type">{instance.instance_type}</dd>
        </div>
        <div>
          <dt>GPUs</dt>
          <dd data-testid="fact-gpus">{formatGpus(instance)}</dd>
        </div>
        <div>
          <dt>Billing</dt>
          <dd data-testid="fact-billing">
            {chargeTypeLabel(instance.charge_type)}
            {instance.expires_at && !isTerminated(instance) && (
              <div className="cell-sub muted">Expires {formatDateTime(instance.expires_at, timeZone)}</div>
            )}
          </dd>
        </div>
        <div>
          <dt>Project</dt>
          <dd data-testid="fact-project">{instance.project ?? <span className="muted">Unallocated</span>}</dd>
        </div>
      </dl>
    </section>
  );
}

function PhasesBody({ data, timeZone }: { data: InstancePhases; timeZone: string }) {
  const priced = data.cost_source !== 'unpriced' && data.cost !== null;
  const rows = PHASES.filter((p) => data.totals[p]);
  const totalMinutes = rows.reduce((acc, p) => acc + (data.totals[p]?.minutes ?? 0), 0);
  const totalGpuHours = sumDecimals(rows.map((p) => data.totals[p]?.gpu_hours));
  const money = (amount: string | null) => (priced ? formatMoney(amount, data.currency) : '—');
  const share = (amount: string | null) => (priced ? formatPercent(ratio(amount, data.cost)) : '—');
  const idle = data.totals.idle;
  const dataBound = data.totals.data_processing;

  return (
    <>
      <CostSourceNote source={data.cost_source} />
      <div className="stats">
        <StatCard
          label="GPU cost"
          value={money(data.cost)}
          detail={`${formatDecimal(totalGpuHours)} GPU-hours${data.cost_source === 'list_price' ? ' · estimated' : ''}`}
          testId="stat-cost"
        />
        <StatCard
          label="Idle"
          tone="waste"
          value={money(data.idle_cost)}
          detail={`${formatMinutes(idle?.minutes ?? 0)} idle${priced ? ` · ${share(data.idle_cost)} of cost` : ''}`}
          testId="stat-idle"
        />
        <StatCard
          label="Data-bound"
          tone="waste"
          value={money(data.data_bound_cost)}
          detail={`${formatMinutes(dataBound?.minutes ?? 0)} waiting for data${priced ? ` · ${share(data.data_bound_cost)} of cost` : ''}`}
          testId="stat-data-bound"
        />
      </div>

      <h3 className="subsection-title">Timeline</h3>
      {data.segments.length === 0 ? (
        <p className="muted" data-testid="timeline-empty">
          No utilization data for this instance in this period.
        </p>
      ) : (
        <>
          <Suspense fallback={<Spinner label="Loading chart…" />}>
            <PhaseTimelineChart segments={data.segments} start={data.start} end={data.end} timeZone={timeZone} />
          </Suspense>
          <PhaseLegend />
        </>
      )}

      <table className="table table--numbers" aria-label="Totals by phase">
        <thead>
          <tr>
            <th>Phase</th>
            <th>Time</th>
            <th>GPU-hours</th>
            <th>Cost ({data.currency})</th>
            <th>Share of cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr>
              <td colSpan={5} className="table__empty">
                Nothing recorded in this period.
              </td>
            </tr>
          )}
          {rows.map((p) => {
            const f = data.totals[p]!;
            return (
              <tr key={p} data-testid={`phase-row-${p}`}>
                <td>
                  <PhaseSwatch phase={p} />
                  {PHASE_LABELS[p]}
                </td>
                <td>{formatMinutes(f.minutes)}</td>
                <td>{formatDecimal(f.gpu_hours)}</td>
                <td>{money(f.cost)}</td>
                <td>{share(f.cost)}</td>
              </tr>
            );
          })}
        </tbody>
        {rows.length > 0 && (
          <tfoot>
            <tr data-testid="phase-row-total">
              <th scope="row">Total</th>
              <td>{formatMinutes(totalMinutes)}</td>
              <td>{formatDecimal(totalGpuHours)}</td>
              <td>{money(data.cost)}</td>
              <td>{priced && ratio(data.cost, data.cost) !== null ? '100.0%' : '—'}</td>
            </tr>
          </tfoot>
        )}
      </table>
    </>
  );
}

function ProfileBody({ profile, orgTimeZone }: { profile: InstanceProfile; orgTimeZone: string }) {
  const timeZone = profile.tz || orgTimeZone;
  if (!profile.analysed || !profile.p95_pct) {
    return (
      <EmptyState title="Not analysed yet" icon="◷" testId="profile-not-analysed">
        <p>
          The hour-of-week profile shows how busy this instance&apos;s GPUs are at each hour of the week, and finds a
          recurring low window worth a stop/start schedule. It appears once enough utilization data has been collected
          and analysed for this instance.
        </p>
      </EmptyState>
    );
  }
  const off = profile.off_window;
  const computed = formatRelative(profile.computed_at);
  return (
    <>
      {off ? (
        <div className="alert alert--info off-window" data-testid="off-window">
          <div>
            <strong>Recurring low window: {off.runs.map((r) => r.label).join(', ')}</strong>
            <div>
              {off.weekly_hours} h a week, seen in {off.supporting_weeks} of {off.observed_weeks} weeks (p95 GPU
              utilization at most {off.p95_max_pct}%).
            </div>
            {off.description && <div className="muted">{off.description}</div>}
          </div>
        </div>
      ) : (
        <p className="muted" data-testid="off-window-none">
          <strong>No recurring low window</strong>: no block of hours was consistently quiet across the analysed weeks.
        </p>
      )}
      <HourOfWeekHeatmap p95={profile.p95_pct} coverage={profile.coverage} offWindow={off} timeZone={timeZone} />
      <p className="muted small">
        p95 GPU utilization per hour of the week, hours in {timeZone}
        {profile.start_at && profile.end_at && (
          <>
            , from metrics between {formatDateTime(profile.start_at, timeZone)} and {formatDateTime(profile.end_at, timeZone)}
          </>
        )}
        {computed && <>; computed {computed}</>}.
      </p>
    </>
  );
}
