import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { recommendationsApi } from '../../api/endpoints';
import type { Org, Recommendation, RecommendationDetail, RecommendationStatus, RecommendationTotal, RecommendationTotals } from '../../api/types';
import { useMe } from '../../auth/AuthContext';
import { EmptyState, ErrorBanner, NoOrganizationPage, Pagination, Spinner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { formatDate } from '../../format';
import { useApiData, usePaginatedList } from '../../hooks';
import { formatMoney, sumDecimals } from '../../money';
import { canEditDomain } from '../settings/permissions';
import { kindLabel, STATUS_LABELS, STATUSES, statusInline, statusLabel } from './labels';
import { ConfidenceText, RiskText, SavingText, TargetText } from './parts';
import { RecommendationActions } from './RecommendationActions';

const DEFAULT_STATUS: RecommendationStatus = 'open';
const GROUP_PAGE_SIZE = 10;

/** The status the URL asks for (`?status=accepted`); anything else is the open ones. */
export function statusFromParams(params: URLSearchParams): RecommendationStatus {
  const value = params.get('status');
  return (STATUSES as string[]).includes(value ?? '') ? (value as RecommendationStatus) : DEFAULT_STATUS;
}

/**
 * Sums per currency (an organization bills in one, but the totals come one row per kind and currency). A kind
 * without a saving (null: thermal, the data pipeline) counts in `count` and adds nothing to the money.
 */
export function savingsByCurrency(rows: RecommendationTotal[]): { currency: string; amount: string; count: number }[] {
  const currencies = [...new Set(rows.map((row) => row.currency))];
  return currencies.map((currency) => {
    const mine = rows.filter((row) => row.currency === currency);
    return {
      currency,
      amount: sumDecimals(mine.map((row) => row.monthly_saving)),
      count: mine.reduce((acc, row) => acc + row.count, 0),
    };
  });
}

export function RecommendationsPage() {
  const me = useMe();
  const { t } = useTranslation();
  if (!me.organization) return <NoOrganizationPage title={t('nav.recommendations')} />;
  return <RecommendationsList org={me.organization} />;
}

interface Notice {
  title: string;
  status: RecommendationStatus;
}

function RecommendationsList({ org }: { org: Org }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const status = statusFromParams(params);
  const [notice, setNotice] = useState<Notice | null>(null);
  const totals = useApiData<RecommendationTotals>([...queryKeys.recommendations, 'totals', status], (signal) =>
    recommendationsApi.totals({ status }, signal),
  );

  const setStatus = (next: RecommendationStatus) => {
    const nextParams = new URLSearchParams(params);
    if (next === DEFAULT_STATUS) nextParams.delete('status');
    else nextParams.set('status', next);
    setNotice(null);
    setParams(nextParams, { replace: true });
  };
  const onDone = (updated: RecommendationDetail) => setNotice({ title: updated.title, status: updated.status });

  const groups = totals.data?.by_kind ?? [];
  const sums = savingsByCurrency(groups);

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.recommendations')}</h1>
          <p className="page__subtitle">{t('recommendations.subtitle')}</p>
        </div>
        <Link className="btn" to="/settings/recommendations">
          {t('recommendations.thresholdsLink')}
        </Link>
      </header>

      <div className="segmented rec-status-filter" role="group" aria-label={t('recommendations.statusFilter')}>
        {STATUSES.map((s) => (
          <button
            key={s}
            type="button"
            className={`btn btn--small${s === status ? ' btn--selected' : ''}`}
            aria-pressed={s === status}
            onClick={() => setStatus(s)}
          >
            {STATUS_LABELS[s]}
          </button>
        ))}
      </div>

      {notice && (
        <div className="alert alert--success" role="status" data-testid="rec-notice">
          <span>
            <Trans
              i18nKey="recommendations.movedTo"
              values={{ title: notice.title, status: statusInline(notice.status) }}
              components={{ strong: <strong /> }}
            />
          </span>
          {notice.status !== status && (
            <button type="button" className="btn btn--small btn--ghost" onClick={() => setStatus(notice.status)}>
              {t('recommendations.showStatus', { status: statusLabel(notice.status) })}
            </button>
          )}
        </div>
      )}

      <ErrorBanner error={totals.error} onRetry={totals.reload} />
      {totals.loading && <LoadingSkeleton />}

      {totals.data && groups.length === 0 && <NoneInStatus status={status} onStatus={setStatus} />}

      {totals.data && groups.length > 0 && (
        <>
          <p className="rec-summary" data-testid="rec-summary">
            {sums.map((sum) => (
              <span key={sum.currency}>
                {t('recommendations.summary', {
                  count: sum.count,
                  status: statusInline(status),
                  money: formatMoney(sum.amount, sum.currency),
                })}
              </span>
            ))}
          </p>
          {groups.map((group) => (
            <KindGroup key={`${group.key}-${group.currency}`} group={group} status={status} org={org} onDone={onDone} />
          ))}
        </>
      )}
    </div>
  );
}

function LoadingSkeleton() {
  const { t } = useTranslation();
  return (
    <div data-testid="rec-loading">
      <Spinner label={t('recommendations.loading')} />
      <div className="rec-skeleton" aria-hidden="true">
        {[0, 1, 2].map((i) => (
          <div key={i} className="rec-skeleton__row" />
        ))}
      </div>
    </div>
  );
}

function NoneInStatus({ status, onStatus }: { status: RecommendationStatus; onStatus: (s: RecommendationStatus) => void }) {
  const { t } = useTranslation();
  if (status === 'open') {
    return (
      <EmptyState title={t('recommendations.empty.openTitle')} icon="✦" testId="rec-empty">
        <p>{t('recommendations.empty.openBody')}</p>
        <p className="muted">
          <Trans
            i18nKey="recommendations.empty.openNext"
            components={{ settings: <Link to="/settings/cloud-accounts" />, instances: <Link to="/instances" /> }}
          />
        </p>
      </EmptyState>
    );
  }
  return (
    <EmptyState
      title={t('recommendations.empty.title', { status: statusInline(status) })}
      icon="✦"
      testId="rec-empty"
      action={
        <button type="button" className="btn" onClick={() => onStatus('open')}>
          {t('recommendations.empty.seeOpen')}
        </button>
      }
    >
      <p>{t(`recommendations.empty.body.${status}`)}</p>
    </EmptyState>
  );
}

function KindGroup({
  group,
  status,
  org,
  onDone,
}: {
  group: RecommendationTotal;
  status: RecommendationStatus;
  org: Org;
  onDone: (updated: RecommendationDetail) => void;
}) {
  const { t } = useTranslation();
  const kind = group.key ?? '';
  const list = usePaginatedList<Recommendation>(
    [...queryKeys.recommendations, 'list', status, kind],
    (q, signal) => recommendationsApi.list(q, { status, kind: kind as Recommendation['kind'] }, signal),
    GROUP_PAGE_SIZE,
  );
  const canAct = canEditDomain(org.role);
  const headingId = `rec-group-${kind}`;
  return (
    <section className="card rec-group" aria-labelledby={headingId} data-testid={`rec-group-${kind}`}>
      <div className="section-header">
        <h2 id={headingId} className="card__title">
          {kindLabel(kind, group.label)}
        </h2>
        <div className="rec-group__total" data-testid={`rec-group-total-${kind}`}>
          {group.monthly_saving === null
            ? t('recommendations.groupTotalNoSaving', { count: group.count })
            : t('recommendations.groupTotal', {
                count: group.count,
                money: formatMoney(group.monthly_saving, group.currency),
              })}
          {group.alternatives > 0 && (
            <div className="cell-sub muted small" data-testid={`rec-group-alternatives-${kind}`}>
              {t('recommendations.alternativesNotCounted', { count: group.alternatives })}
            </div>
          )}
        </div>
      </div>
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && list.items.length === 0 && <Spinner label={t('recommendations.loading')} />}
      {list.items.length > 0 && (
        <table className="table rec-table" aria-label={kindLabel(kind, group.label)}>
          <thead>
            <tr>
              <th>{t('recommendations.col.recommendation')}</th>
              <th>{t('recommendations.col.saving')}</th>
              <th>{t('recommendations.col.confidence')}</th>
              <th>{t('recommendations.col.risk')}</th>
              {canAct && <th>{t('recommendations.col.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {list.items.map((rec) => (
              <tr key={rec.id} data-testid={`rec-row-${rec.id}`}>
                <td>
                  <div className="cell-title">
                    <Link to={`/recommendations/${rec.id}`}>{rec.title}</Link>
                    {rec.role === 'alternative' && (
                      <span
                        className="badge badge--muted"
                        title={t('recommendations.alternativeHelp')}
                        data-testid="rec-alternative"
                      >
                        {t('recommendations.alternative')}
                      </span>
                    )}
                  </div>
                  <div className="cell-sub">
                    <TargetText rec={rec} />
                  </div>
                  <StatusNote rec={rec} timeZone={org.timezone} />
                </td>
                <td>
                  <SavingText rec={rec} />
                  {rec.status === 'accepted' && <RealisedLine id={rec.id} />}
                </td>
                <td>
                  <ConfidenceText rec={rec} />
                </td>
                <td>
                  <RiskText rec={rec} />
                </td>
                {canAct && (
                  <td>
                    <RecommendationActions rec={rec} timeZone={org.timezone} onDone={onDone} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pagination page={list.page} pageSize={list.pageSize} count={list.count} onPage={list.setPage} disabled={list.loading} />
    </section>
  );
}

/**
 * An accepted row's realised saving beside its promise. Lists do not carry it, so it comes from the
 * recommendation's detail (the same cached answer its page shows), one request per accepted row shown.
 */
function RealisedLine({ id }: { id: number }) {
  const { t } = useTranslation();
  const detail = useApiData<RecommendationDetail>(queryKeys.recommendation(id), (signal) => recommendationsApi.get(id, signal));
  const realised = detail.data?.realised;
  if (!realised) return null;
  return (
    <div className="cell-sub small" data-testid={`realised-line-${id}`}>
      {realised.monthly_saving_realised === null
        ? t('recommendations.realised.lineTooEarly')
        : t('recommendations.realised.line', {
            realised: formatMoney(realised.monthly_saving_realised, realised.currency),
            promised: formatMoney(realised.monthly_saving_promised, realised.currency),
          })}
    </div>
  );
}

/** Snoozed until when, dismissed why, accepted since when (and its finding gone since when). */
export function StatusNote({ rec, timeZone }: { rec: Recommendation; timeZone: string }) {
  const { t } = useTranslation();
  if (rec.status === 'snoozed' && rec.snoozed_until) {
    return <div className="cell-sub muted small">{t('recommendations.snoozedUntil', { date: formatDate(rec.snoozed_until, timeZone) })}</div>;
  }
  if (rec.status === 'dismissed' && rec.status_reason) {
    return <div className="cell-sub muted small">{t('recommendations.dismissedBecause', { reason: rec.status_reason })}</div>;
  }
  if (rec.status === 'accepted' && rec.accepted_at && rec.resolved_at) {
    // Accepted and its finding gone since (the advice followed): it stays accepted and measured.
    const dates = { date: formatDate(rec.accepted_at, timeZone), gone: formatDate(rec.resolved_at, timeZone) };
    return <div className="cell-sub muted small">{t('recommendations.acceptedGone', dates)}</div>;
  }
  if (rec.status === 'accepted' && rec.accepted_at) {
    return <div className="cell-sub muted small">{t('recommendations.acceptedOn', { date: formatDate(rec.accepted_at, timeZone) })}</div>;
  }
  return null;
}
