import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { INSTANCE_STATE_LABELS } from '../../api/cloudChoices';
import type { Instance, Page, Recommendation, InstanceProfile } from '../../api/types';
import { EmptyState, ErrorBanner } from '../../components/ui';
import { formatDateTime, formatRelative } from '../../format';
import type { ApiData } from '../../hooks';
import { intlLocale } from '../../i18n';
import { formatMoney, isPositive } from '../../money';
import { HourOfWeekHeatmap } from '../HourOfWeekHeatmap';
import { chargeTypeLabel, formatGpus, isTerminated } from '../InstancesPage';
import { ChartSkeleton } from './ChartSkeleton';
import { offWindowWords } from './offWindowWords';

export function InstanceHeader({ instance }: { instance: Instance }) {
  return (
    <header className="page__header">
      <div>
        <h1>
          {instance.name || instance.provider_id}
          {isTerminated(instance) && <span className="badge badge--muted">{INSTANCE_STATE_LABELS.TERMINATED}</span>}
        </h1>
        <p className="page__subtitle">
          <code>{instance.provider_id}</code> · {instance.zone || instance.region}
        </p>
      </div>
    </header>
  );
}

/** "41 days" or "6 h": how long the instance existed. */
export function lifetimeText(t: (key: string, options?: Record<string, unknown>) => string, from: string, to: string): string {
  const hours = Math.max(0, (Date.parse(to) - Date.parse(from)) / 3_600_000);
  return hours >= 48 ? t('instanceDetail.lifetimeDays', { days: Math.round(hours / 24) }) : t('instanceDetail.lifetimeHours', { hours: Math.round(hours) });
}

/** A terminated instance says so, with when it ran: its history (metrics, money) stays on the page. */
export function TerminatedNotice({ instance, timeZone }: { instance: Instance; timeZone: string }) {
  const { t } = useTranslation();
  if (!isTerminated(instance)) return null;
  const terminated = instance.terminated_at;
  return (
    <div className="alert alert--info" data-testid="terminated-notice">
      <div>
        <strong>{t('instanceDetail.terminated.title')}</strong>
        {terminated && (
          <div>
            {instance.launched_at
              ? t('instanceDetail.terminated.body', {
                  launched: formatDateTime(instance.launched_at, timeZone),
                  terminated: formatDateTime(terminated, timeZone),
                  duration: lifetimeText(t, instance.launched_at, terminated),
                })
              : t('instanceDetail.terminated.bodyNoLaunch', { terminated: formatDateTime(terminated, timeZone) })}
          </div>
        )}
      </div>
    </div>
  );
}

function Fact({ label, testId, children }: { label: string; testId: string; children: React.ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

export function InstanceFacts({ instance, timeZone }: { instance: Instance; timeZone: string }) {
  const { t } = useTranslation();
  const end = instance.terminated_at ?? new Date().toISOString();
  return (
    <section className="card" aria-label={t('instance.title')}>
      <dl className="facts facts--small instance-facts">
        <Fact label={t('instance.providerId')} testId="fact-provider-id">
          <code>{instance.provider_id}</code>
        </Fact>
        <Fact label={t('instances.col.type')} testId="fact-type">
          {instance.instance_type}
        </Fact>
        <Fact label={t('instances.col.gpus')} testId="fact-gpus">
          {formatGpus(instance)}
        </Fact>
        {instance.cpu_cores > 0 && (
          <Fact label={t('instanceDetail.facts.cpu')} testId="fact-cpu">
            {t('instanceDetail.facts.cpuValue', { cores: instance.cpu_cores, memory: instance.memory_gb })}
          </Fact>
        )}
        <Fact label={t('instances.billing')} testId="fact-billing">
          {chargeTypeLabel(instance.charge_type)}
          {instance.expires_at && !isTerminated(instance) && (
            <div className="cell-sub muted">{t('instances.expires', { date: formatDateTime(instance.expires_at, timeZone) })}</div>
          )}
        </Fact>
        <Fact label={t('projects.col.project')} testId="fact-project">
          {instance.project ?? <span className="muted">{t('common.unallocated')}</span>}
        </Fact>
        <Fact label={t('instanceDetail.facts.zone')} testId="fact-zone">
          {instance.zone || instance.region}
        </Fact>
        <Fact label={t('instanceDetail.facts.state')} testId="fact-state">
          {INSTANCE_STATE_LABELS[instance.state] ?? instance.state}
        </Fact>
        {instance.launched_at && (
          <Fact label={t('instanceDetail.facts.launched')} testId="fact-launched">
            {formatDateTime(instance.launched_at, timeZone)}
            <div className="cell-sub muted">{lifetimeText(t, instance.launched_at, end)}</div>
          </Fact>
        )}
      </dl>
    </section>
  );
}

export function InstanceTags({ tags }: { tags: unknown }) {
  const { t } = useTranslation();
  const entries = tags && typeof tags === 'object' ? Object.entries(tags as Record<string, unknown>) : [];
  return (
    <section className="card" aria-labelledby="tags-title">
      <h2 id="tags-title" className="card__title">
        {t('instanceDetail.tags.title')}
      </h2>
      {entries.length === 0 ? (
        <p className="muted">{t('instanceDetail.tags.none')}</p>
      ) : (
        <ul className="instance-tags" data-testid="instance-tags">
          {entries
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([key, value]) => (
              <li key={key}>
                <code>
                  {key}={String(value)}
                </code>
              </li>
            ))}
        </ul>
      )}
    </section>
  );
}

export function InstanceRecommendations({ recommendations }: { recommendations: ApiData<Page<Recommendation>> }) {
  const { t } = useTranslation();
  const items = recommendations.data?.results ?? [];
  return (
    <section className="card" aria-labelledby="instance-recs-title">
      <h2 id="instance-recs-title" className="card__title">
        {t('instanceDetail.recommendations.title')}
      </h2>
      <ErrorBanner error={recommendations.error} onRetry={recommendations.reload} />
      {recommendations.loading && <ChartSkeleton height={80} label={t('instanceDetail.recommendations.loading')} />}
      {recommendations.data && items.length === 0 && (
        <p className="muted" data-testid="instance-recs-none">
          {t('instanceDetail.recommendations.none')}
        </p>
      )}
      {items.length > 0 && (
        <ul className="instance-recs" data-testid="instance-recommendations">
          {items.map((r) => (
            <li key={r.id}>
              <Link to={`/recommendations/${r.id}`}>{r.title}</Link>
              <div className="muted small">
                {r.kind_label} ·{' '}
                {r.saving
                  ? t('instanceDetail.recommendations.saving', { amount: formatMoney(r.saving.monthly_amount, r.saving.currency) })
                  : r.paid_while_waiting?.monthly_amount
                    ? t('instanceDetail.recommendations.paidWhileWaiting', {
                        amount: formatMoney(r.paid_while_waiting.monthly_amount, r.paid_while_waiting.currency),
                      })
                    : r.upsize?.monthly_extra_cost && isPositive(r.upsize.monthly_extra_cost)
                      ? t('instanceDetail.recommendations.upsizeExtraCost', {
                          amount: formatMoney(r.upsize.monthly_extra_cost, r.upsize.currency),
                        })
                      : t('instanceDetail.recommendations.noSaving')}
              </div>
            </li>
          ))}
        </ul>
      )}
      <p className="small">
        <Link to="/recommendations">{t('instanceDetail.recommendations.all')}</Link>
      </p>
    </section>
  );
}

export function ProfileBody({ profile, orgTimeZone }: { profile: InstanceProfile; orgTimeZone: string }) {
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
            <strong data-testid="off-window-words">
              {t('instanceDetail.offWindow.title', { window: offWindowWords(t, off.runs, intlLocale()) })}
            </strong>
            <div>
              {t('instance.offWindow.detail', {
                hours: off.weekly_hours,
                seen: off.supporting_weeks,
                weeks: off.observed_weeks,
                max: off.p95_max_pct,
              })}
            </div>
            <div className="muted">{t('instanceDetail.offWindow.hint')}</div>
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
