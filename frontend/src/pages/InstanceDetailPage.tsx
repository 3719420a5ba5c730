import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useMe } from '../auth/AuthContext';
import { instancesApi, recommendationsApi } from '../api/endpoints';
import type { CostReport, Instance, Org, Page, Recommendation, Timeseries, InstancePhases, InstanceProfile } from '../api/types';
import { useApiData } from '../hooks';
import { EmptyState, ErrorBanner, NoOrganization } from '../components/ui';
import { formatDateTime } from '../format';
import { queryKeys } from '../data/keys';
import { apiPeriod, type RangeOptions } from '../dateRange';
import { DateRangePicker, useUrlDateRange } from '../components/DateRangePicker';
import { ChartSkeleton } from './instance/ChartSkeleton';
import { DailyCostSection, PhasesBody } from './instance/CostSections';
import { UtilizationSection } from './instance/UtilizationSection';
import {
  InstanceFacts,
  InstanceHeader,
  InstanceRecommendations,
  InstanceTags,
  ProfileBody,
  TerminatedNotice,
} from './instance/AboutSections';
import './instance/instance.css';

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
  const key = queryKeys.instance(id);
  // The charts' chunk (ECharts) loads while the data does, not after it: lazy() alone would start it only
  // when a chart first renders. The module promise is shared, so lazy() then finds it loaded.
  useEffect(() => void import('./instance/InstanceCharts'), []);

  // Everything starts at once: the instance, its curve, its phases, its profile and its recommendations do
  // not wait for one another; only the daily cost needs the instance (the cost report filters by its id).
  const instance = useApiData<Instance>([...key, 'detail'], (signal) => instancesApi.get(id, signal));
  const series = useApiData<Timeseries>([...key, 'timeseries', range.start, range.end], (signal) =>
    instancesApi.timeseries(id, range, signal),
  );
  const phases = useApiData<InstancePhases>([...key, 'phases', range.start, range.end], (signal) =>
    instancesApi.phases(id, range, signal),
  );
  const profile = useApiData<InstanceProfile>([...key, 'profile'], (signal) => instancesApi.profile(id, signal));
  const providerId = instance.data?.provider_id ?? '';
  const cost = useApiData<CostReport>(
    [...key, 'daily-cost', dateRange.range.from, dateRange.range.to],
    (signal) => instancesApi.dailyCost(providerId, dateRange.range, signal),
    { enabled: providerId !== '' },
  );
  const recommendations = useApiData<Page<Recommendation>>([...queryKeys.recommendations, 'instance', id], (signal) =>
    recommendationsApi.list({ page: 1, pageSize: 10 }, { instance: id, ordering: '-saving' }, signal),
  );

  if (instance.error?.status === 404) return <InstanceNotFound />;
  const shown = phases.data ?? series.data;
  const period = {
    start: Date.parse(series.data?.start ?? phases.data?.start ?? `${range.start}T00:00:00Z`),
    end: Date.parse(series.data?.end ?? phases.data?.end ?? `${range.end}T00:00:00Z`),
  };

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
      {instance.loading && <ChartSkeleton height={96} label={t('instance.loading')} />}
      {instance.data && <TerminatedNotice instance={instance.data} timeZone={org.timezone} />}
      {instance.data && <InstanceFacts instance={instance.data} timeZone={org.timezone} />}

      <section className="card" aria-labelledby="utilization-title">
        <div className="section-header">
          <div>
            <h2 id="utilization-title">{t('instanceDetail.timeseries.title')}</h2>
            {shown && (
              <p className="muted" data-testid="phases-period">
                {t('common.period', {
                  start: formatDateTime(shown.start, org.timezone),
                  end: formatDateTime(shown.end, org.timezone),
                  timeZone: org.timezone,
                })}
              </p>
            )}
          </div>
          <DateRangePicker value={dateRange} />
        </div>
        <UtilizationSection id={id} series={series} phases={phases} period={period} timeZone={org.timezone} />
      </section>

      <div className="instance-grid">
        <div>
          <section className="card" aria-labelledby="phases-title">
            <h2 id="phases-title" className="card__title">
              {t('instance.byPhase')}
            </h2>
            <ErrorBanner error={phases.error} onRetry={phases.reload} />
            {phases.loading && <ChartSkeleton height={220} label={t('instance.loadingPhases')} />}
            {phases.data && <PhasesBody data={phases.data} />}
          </section>
          <DailyCostSection cost={instance.data ? cost : { ...cost, loading: instance.loading }} />
          <section className="card" aria-labelledby="profile-title">
            <h2 id="profile-title" className="card__title">
              {t('instance.profile')}
            </h2>
            <ErrorBanner error={profile.error} onRetry={profile.reload} />
            {profile.loading && <ChartSkeleton height={240} label={t('instance.loadingProfile')} />}
            {profile.data && <ProfileBody profile={profile.data} orgTimeZone={org.timezone} />}
          </section>
        </div>
        <div>
          {instance.data && <InstanceTags tags={instance.data.tags} />}
          <InstanceRecommendations recommendations={recommendations} />
        </div>
      </div>
    </div>
  );
}
