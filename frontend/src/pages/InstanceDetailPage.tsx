import { Trans, useTranslation } from 'react-i18next';
import { lazy, Suspense } from 'react';
import { Link, useParams } from 'react-router';
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
import { INSTANCE_STATE_LABELS } from '../api/cloudChoices';
import { HourOfWeekHeatmap } from './HourOfWeekHeatmap';
import { queryKeys } from '../data/keys';
import { apiPeriod, type RangeOptions } from '../dateRange';
import { DateRangePicker, useUrlDateRange } from '../components/DateRangePicker';

// ECharts is loaded only when there is a timeline to draw.
const PhaseTimelineChart = lazy(() => import('./PhaseTimelineChart'));

/** The phases endpoint answers at most 31 days; the picker offers only what fits. */
export const INSTANCE_RANGE: RangeOptions = { maxDays: 31, defaultPreset: '7d' };

export function InstanceDetailPage() {
  const me = useMe();
  const { t } = useTranslation();
  const { id = '' } = useParams();
  if (!me.organization) {
    return (
      <div className="page">
        <header className="page__header">
          <h1>{t('instance.title')}</h1>
        </header>
        <NoOrganization />
      </div>
    );
  }
  if (!/^\d+$/.test(id)) return <InstanceNotFound />;
  return <InstanceDetail key={id} id={Number(id)} org={me.organization} />;
}

function InstanceNotFound() {
  const { t } = useTranslation();
  return (
    <div className="page">
      <BackLink />
      <EmptyState
        title={t('instance.notFound.title')}
        icon="?"
        testId="instance-not-found"
        action={
          <Link className="btn" to="/instances">
            {t('instance.allInstances')}
          </Link>
        }
      >
        <p>{t('instance.notFound.body')}</p>
      </EmptyState>
    </div>
  );
}

function BackLink() {
  const { t } = useTranslation();
  return (
    <p className="breadcrumb">
      <Link to="/instances">{t('instance.back')}</Link>
    </p>
  );
}

function InstanceDetail({ id, org }: { id: number; org: Org }) {
  const { t } = useTranslation();
  const dateRange = useUrlDateRange(org.timezone, INSTANCE_RANGE);
  const range = apiPeriod(dateRange.range);

  const instance = useApiData<Instance>([...queryKeys.instance(id), 'detail'], (signal) => instancesApi.get(id, signal));
  const phases = useApiData<InstancePhases>([...queryKeys.instance(id), 'phases', range.start, range.end], (signal) =>
    instancesApi.phases(id, range, signal),
  );
  const profile = useApiData<InstanceProfile>([...queryKeys.instance(id), 'profile'], (signal) => instancesApi.profile(id, signal));

  if (instance.error?.status === 404) return <InstanceNotFound />;

  return (
    <div className="page">
      <BackLink />
      {instance.data ? (
        <InstanceHeader instance={instance.data} />
      ) : (
        <header className="page__header">
          <h1>{t('instance.title')}</h1>
        </header>
      )}
      <ErrorBanner error={instance.error} onRetry={instance.reload} />
      {instance.loading && <Spinner label={t('instance.loading')} />}
      {instance.data && <InstanceFacts instance={instance.data} timeZone={org.timezone} />}

      <section className="card" aria-labelledby="phases-title">
        <div className="section-header">
          <div>
            <h2 id="phases-title">{t('instance.byPhase')}</h2>
            {phases.data && (
              <p className="muted" data-testid="phases-period">
                {t('common.period', {
                  start: formatDateTime(phases.data.start, org.timezone),
                  end: formatDateTime(phases.data.end, org.timezone),
                  timeZone: org.timezone,
                })}
              </p>
            )}
          </div>
          <DateRangePicker value={dateRange} />
        </div>
        <ErrorBanner error={phases.error} onRetry={phases.reload} />
        {phases.loading && <Spinner label={t('instance.loadingPhases')} />}
        {phases.data && <PhasesBody data={phases.data} timeZone={org.timezone} />}
      </section>

      <section className="card" aria-labelledby="profile-title">
        <h2 id="profile-title" className="card__title">
          {t('instance.profile')}
        </h2>
        <ErrorBanner error={profile.error} onRetry={profile.reload} />
        {profile.loading && <Spinner label={t('instance.loadingProfile')} />}
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
          {terminated && <span className="badge badge--muted">{INSTANCE_STATE_LABELS.TERMINATED}</span>}
        </h1>
        <p className="page__subtitle">
          <code>{instance.provider_id}</code> · {instance.zone || instance.region}
        </p>
      </div>
    </header>
  );
}

function InstanceFacts({ instance, timeZone }: { instance: Instance; timeZone: string }) {
  const { t } = useTranslation();
  return (
    <section className="card" aria-label={t('instance.title')}>
      <dl className="facts facts--small instance-facts">
        <div>
          <dt>{t('instance.providerId')}</dt>
          <dd data-testid="fact-provider-id">
            <code>{instance.provider_id}</code>
          </dd>
        </div>
        <div>
          <dt>{t('instances.col.type')}</dt>
          <dd data-testid="fact-type">{instance.instance_type}</dd>
        </div>
        <div>
          <dt>{t('instances.col.gpus')}</dt>
          <dd data-testid="fact-gpus">{formatGpus(instance)}</dd>
        </div>
        <div>
          <dt>{t('instances.billing')}</dt>
          <dd data-testid="fact-billing">
            {chargeTypeLabel(instance.charge_type)}
            {instance.expires_at && !isTerminated(instance) && (
              <div className="cell-sub muted">{t('instances.expires', { date: formatDateTime(instance.expires_at, timeZone) })}</div>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('projects.col.project')}</dt>
          <dd data-testid="fact-project">{instance.project ?? <span className="muted">{t('common.unallocated')}</span>}</dd>
        </div>
      </dl>
    </section>
  );
}

function PhasesBody({ data, timeZone }: { data: InstancePhases; timeZone: string }) {
  const { t } = useTranslation();
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
          label={t('common.gpuCost')}
          value={money(data.cost)}
          detail={t(data.cost_source === 'list_price' ? 'instance.gpuHoursEstimated' : 'instance.gpuHoursDetail', {
            hours: formatDecimal(totalGpuHours),
          })}
          testId="stat-cost"
        />
        <StatCard
          label={PHASE_LABELS.idle}
          tone="waste"
          value={money(data.idle_cost)}
          detail={
            priced
              ? t('instance.idleDetailShare', { time: formatMinutes(idle?.minutes ?? 0), share: share(data.idle_cost) })
              : t('instance.idleDetail', { time: formatMinutes(idle?.minutes ?? 0) })
          }
          testId="stat-idle"
        />
        <StatCard
          label={t('common.dataBound')}
          tone="waste"
          value={money(data.data_bound_cost)}
          detail={
            priced
              ? t('instance.dataBoundDetailShare', { time: formatMinutes(dataBound?.minutes ?? 0), share: share(data.data_bound_cost) })
              : t('instance.dataBoundDetail', { time: formatMinutes(dataBound?.minutes ?? 0) })
          }
          testId="stat-data-bound"
        />
      </div>

      <h3 className="subsection-title">{t('instance.timeline')}</h3>
      {data.segments.length === 0 ? (
        <p className="muted" data-testid="timeline-empty">
          {t('instance.noData')}
        </p>
      ) : (
        <>
          <Suspense fallback={<Spinner label={t('common.loadingChart')} />}>
            <PhaseTimelineChart segments={data.segments} start={data.start} end={data.end} timeZone={timeZone} />
          </Suspense>
          <PhaseLegend />
        </>
      )}

      <table className="table table--numbers" aria-label={t('instance.totalsByPhase')}>
        <thead>
          <tr>
            <th>{t('instance.col.phase')}</th>
            <th>{t('instance.col.time')}</th>
            <th>{t('common.gpuHours')}</th>
            <th>{t('instance.col.cost', { currency: data.currency })}</th>
            <th>{t('instance.col.share')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr>
              <td colSpan={5} className="table__empty">
                {t('instance.nothingRecorded')}
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
              <th scope="row">{t('common.total')}</th>
              <td>{formatMinutes(totalMinutes)}</td>
              <td>{formatDecimal(totalGpuHours)}</td>
              <td>{money(data.cost)}</td>
              <td>{priced && ratio(data.cost, data.cost) !== null ? formatPercent(1) : '—'}</td>
            </tr>
          </tfoot>
        )}
      </table>
    </>
  );
}

function ProfileBody({ profile, orgTimeZone }: { profile: InstanceProfile; orgTimeZone: string }) {
  const { t } = useTranslation();
  const timeZone = profile.tz || orgTimeZone;
  if (!profile.analysed || !profile.p95_pct) {
    return (
      <EmptyState title={t('instance.notAnalysed.title')} icon="◷" testId="profile-not-analysed">
        <p>{t('instance.notAnalysed.body')}</p>
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
            <strong>{t('instance.offWindow.title', { runs: off.runs.map((r) => r.label).join(', ') })}</strong>
            <div>
              {t('instance.offWindow.detail', {
                hours: off.weekly_hours,
                seen: off.supporting_weeks,
                weeks: off.observed_weeks,
                max: off.p95_max_pct,
              })}
            </div>
            {off.description && <div className="muted">{off.description}</div>}
          </div>
        </div>
      ) : (
        <p className="muted" data-testid="off-window-none">
          <Trans i18nKey="instance.offWindow.none" components={{ strong: <strong /> }} />
        </p>
      )}
      <HourOfWeekHeatmap p95={profile.p95_pct} coverage={profile.coverage} offWindow={off} timeZone={timeZone} />
      <p className="muted small">
        {t('instance.profileNote', { timeZone })}
        {profile.start_at &&
          profile.end_at &&
          t('instance.profileMetrics', {
            start: formatDateTime(profile.start_at, timeZone),
            end: formatDateTime(profile.end_at, timeZone),
          })}
        {computed && t('instance.profileComputed', { computed })}
        {t('instance.profileEnd')}
      </p>
    </>
  );
}
