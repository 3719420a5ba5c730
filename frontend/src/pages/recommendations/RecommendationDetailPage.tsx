import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { recommendationsApi } from '../../api/endpoints';
import type { Org, RecommendationDetail, RecommendationEvent, RecommendationRealised } from '../../api/types';
import { useMe } from '../../auth/AuthContext';
import { EmptyState, ErrorBanner, NoOrganizationPage, Spinner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { formatDateTime, formatList } from '../../format';
import { useApiData } from '../../hooks';
import { formatMoney } from '../../money';
import { figureLabel, figureValue, kindLabel, statusLabel } from './labels';
import { ConfidenceText, CopyableCode, RiskText, SavingText, StatusBadge, TargetText } from './parts';
import { AutomationPanel } from './AutomationPanel';
import { RecommendationActions } from './RecommendationActions';
import { StatusNote } from './RecommendationsPage';

// ECharts is loaded only when a recommendation's evidence is shown.
const EvidenceChart = lazy(() => import('./EvidenceChart'));

export function RecommendationDetailPage() {
  const me = useMe();
  const { t } = useTranslation();
  const { id = '' } = useParams();
  if (!me.organization) return <NoOrganizationPage title={t('nav.recommendations')} />;
  if (!/^\d+$/.test(id)) return <NotFound />;
  return <Detail key={id} id={Number(id)} org={me.organization} />;
}

function BackLink() {
  const { t } = useTranslation();
  return (
    <p className="breadcrumb">
      <Link to="/recommendations">{t('recommendations.detail.back')}</Link>
    </p>
  );
}

function NotFound() {
  const { t } = useTranslation();
  return (
    <div className="page">
      <BackLink />
      <EmptyState
        title={t('recommendations.detail.notFoundTitle')}
        icon="?"
        testId="rec-not-found"
        action={
          <Link className="btn" to="/recommendations">
            {t('recommendations.detail.all')}
          </Link>
        }
      >
        <p>{t('recommendations.detail.notFoundBody')}</p>
      </EmptyState>
    </div>
  );
}

function Detail({ id, org }: { id: number; org: Org }) {
  const { t } = useTranslation();
  const rec = useApiData<RecommendationDetail>(queryKeys.recommendation(id), (signal) => recommendationsApi.get(id, signal));
  if (rec.error?.status === 404) return <NotFound />;
  return (
    <div className="page">
      <BackLink />
      {!rec.data && (
        <header className="page__header">
          <h1>{t('recommendations.detail.title')}</h1>
        </header>
      )}
      <ErrorBanner error={rec.error} onRetry={rec.reload} />
      {rec.loading && <Spinner label={t('recommendations.detail.loading')} />}
      {rec.data && <DetailBody rec={rec.data} org={org} />}
    </div>
  );
}

function DetailBody({ rec, org }: { rec: RecommendationDetail; org: Org }) {
  const { t } = useTranslation();
  const tz = org.timezone;
  return (
    <>
      <header className="page__header">
        <div>
          <h1>
            {rec.title} <StatusBadge status={rec.status} />
          </h1>
          <p className="page__subtitle">
            {kindLabel(rec.kind, rec.kind_label)} · <TargetText rec={rec} />
          </p>
          <StatusNote rec={rec} timeZone={tz} />
        </div>
      </header>

      <section className="card" aria-label={t('recommendations.detail.summary')}>
        <dl className="facts rec-facts">
          <div>
            <dt>{t('recommendations.col.saving')}</dt>
            <dd data-testid="detail-saving">
              <SavingText rec={rec} />
            </dd>
          </div>
          <div>
            <dt>{t('recommendations.col.confidence')}</dt>
            <dd>
              <ConfidenceText rec={rec} />
            </dd>
          </div>
          <div>
            <dt>{t('recommendations.col.risk')}</dt>
            <dd>
              <RiskText rec={rec} />
            </dd>
          </div>
        </dl>
        <p className="rec-explanation" data-testid="detail-explanation">
          {rec.explanation}
        </p>
        <RecommendationActions rec={rec} timeZone={tz} />
      </section>

      {rec.realised && <RealisedCard realised={rec.realised} timeZone={tz} />}

      <section className="card" aria-labelledby="rec-evidence-title">
        <h2 id="rec-evidence-title" className="card__title">
          {t('recommendations.detail.evidence')}
        </h2>
        {rec.evidence.chart_range && (
          <p className="muted small">
            {t('recommendations.detail.evidenceRange', {
              start: formatDateTime(rec.evidence.chart_range.start, tz),
              end: formatDateTime(rec.evidence.chart_range.end, tz),
              timeZone: tz,
            })}
          </p>
        )}
        <table className="table table--compact" aria-label={t('recommendations.detail.figures')} data-testid="evidence-figures">
          <tbody>
            {rec.evidence.figures.map((figure) => (
              <tr key={figure.name}>
                <th scope="row">{figureLabel(figure.name)}</th>
                <td className="mono">{figureValue(figure.name, figure.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <Suspense fallback={<Spinner label={t('common.loadingChart')} />}>
          <EvidenceChart rec={rec} timeZone={tz} />
        </Suspense>
      </section>

      <ApplyCard rec={rec} />

      <AutomationPanel rec={rec} org={org} />

      <HistoryCard history={rec.history} timeZone={tz} />
    </>
  );
}

/**
 * What the accepted change saved so far (from the instance's bills) next to what was promised,
 * with the periods and amounts billed it is computed from, so it can be recomputed by hand.
 */
function RealisedCard({ realised, timeZone }: { realised: RecommendationRealised; timeZone: string }) {
  const { t } = useTranslation();
  const money = (amount: string | null) => formatMoney(amount, realised.currency);
  const before = {
    weeks: realised.weeks_before,
    costBefore: money(realised.cost_before),
    beforeStart: formatDateTime(realised.before_start, timeZone),
    beforeEnd: formatDateTime(realised.before_end, timeZone),
    before: money(realised.weekly_cost_before),
  };
  return (
    <section className="card" aria-labelledby="rec-realised-title" data-testid="realised">
      <h2 id="rec-realised-title" className="card__title">
        {t('recommendations.realised.title')}
      </h2>
      <div className="stats">
        <div className="stat" data-testid="realised-promised">
          <div className="stat__label">{t('recommendations.realised.promised')}</div>
          <div className="stat__value">
            {realised.monthly_saving_promised === null
              ? t('recommendations.noSaving')
              : t('recommendations.perMonth', { money: money(realised.monthly_saving_promised) })}
          </div>
        </div>
        <div className="stat" data-testid="realised-amount">
          <div className="stat__label">{t('recommendations.realised.realised')}</div>
          <div className="stat__value">
            {realised.monthly_saving_realised === null
              ? t('recommendations.realised.tooEarly')
              : t('recommendations.perMonth', { money: money(realised.monthly_saving_realised) })}
          </div>
        </div>
      </div>
      <p className="muted small" data-testid="realised-formula">
        {realised.weekly_cost_after === null || realised.weekly_saving === null
          ? t('recommendations.realised.baselineOnly', before)
          : t('recommendations.realised.formula', {
              ...before,
              costAfter: money(realised.cost_after),
              afterStart: formatDateTime(realised.after_start, timeZone),
              afterEnd: formatDateTime(realised.after_end, timeZone),
              weeksAfter: realised.weeks_after,
              after: money(realised.weekly_cost_after),
              saving: money(realised.weekly_saving),
              monthly: money(realised.monthly_saving_realised),
            })}
      </p>
      <p className="muted small" data-testid="realised-instances">
        {t('recommendations.realised.instances', { count: realised.instances.length, names: formatList(realised.instances) })}
      </p>
    </section>
  );
}

/** The exact commands (tccli, cron) and the steps, each block with its copy button. */
function ApplyCard({ rec }: { rec: RecommendationDetail }) {
  const { t } = useTranslation();
  const { action } = rec;
  const nothing = action.steps.length === 0 && action.commands.length === 0 && action.cron.length === 0;
  return (
    <section className="card" aria-labelledby="rec-apply-title">
      <h2 id="rec-apply-title" className="card__title">
        {t('recommendations.detail.apply')}
      </h2>
      {nothing && <p className="muted">{t('recommendations.detail.noAction')}</p>}
      {action.window && (
        <p data-testid="action-window">
          {t('recommendations.detail.window', {
            runs: formatList(action.window.runs.map((run) => run.label)),
            hours: action.window.weekly_hours ?? action.window.runs.reduce((acc, run) => acc + run.hours, 0),
            timeZone: action.window.tz,
          })}
        </p>
      )}
      {action.stopped_mode && (
        <p className="muted small">
          {t('recommendations.detail.stoppedMode', {
            mode: action.stopped_mode,
            billed: formatList(action.still_billed_when_stopped) || '—',
          })}
        </p>
      )}
      {action.steps.length > 0 && (
        <>
          <h3 className="subsection-title">{t('recommendations.detail.steps')}</h3>
          <ol className="steps">
            {action.steps.map((step, i) => (
              <li key={i}>{step}</li>
            ))}
          </ol>
        </>
      )}
      {action.commands.length > 0 && (
        <>
          <h3 className="subsection-title">{t('recommendations.detail.commands')}</h3>
          {action.commands.map((command, i) => (
            <CopyableCode key={i} text={command} label={t('recommendations.detail.commandN', { n: i + 1 })} testId={`command-${i}`} />
          ))}
        </>
      )}
      {action.cron.length > 0 && (
        <>
          <h3 className="subsection-title">{t('recommendations.detail.cron')}</h3>
          <CopyableCode text={action.cron.join('\n')} label={t('recommendations.detail.cron')} testId="cron" />
        </>
      )}
    </section>
  );
}

function HistoryCard({ history, timeZone }: { history: RecommendationEvent[]; timeZone: string }) {
  const { t } = useTranslation();
  // Newest first: the last change is what a reader wants to know.
  const events = [...history].sort((a, b) => b.at.localeCompare(a.at));
  return (
    <section className="card" aria-labelledby="rec-history-title">
      <h2 id="rec-history-title" className="card__title">
        {t('recommendations.detail.history')}
      </h2>
      <table className="table table--compact" aria-label={t('recommendations.detail.history')} data-testid="history">
        <thead>
          <tr>
            <th>{t('recommendations.history.when')}</th>
            <th>{t('recommendations.history.who')}</th>
            <th>{t('recommendations.history.what')}</th>
          </tr>
        </thead>
        <tbody>
          {events.length === 0 && (
            <tr>
              <td colSpan={3} className="table__empty">
                {t('recommendations.history.none')}
              </td>
            </tr>
          )}
          {events.map((event, i) => (
            <tr key={`${event.at}-${i}`}>
              <td>{formatDateTime(event.at, timeZone)}</td>
              <td>{event.actor ?? <span className="muted">{t('recommendations.history.system')}</span>}</td>
              <td>
                {event.from_status
                  ? t('recommendations.history.change', { from: statusLabel(event.from_status), to: statusLabel(event.to_status) })
                  : statusLabel(event.to_status)}
                {event.reason && <div className="cell-sub muted">{event.reason}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
