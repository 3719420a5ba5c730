import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { PhaseSwatch } from '../../components/analysis';
import { formatDecimal, formatMoney, formatPercent, ratio } from '../../money';
import { NO_DATA_LABELS, noDataRows, PHASE_LABELS } from '../../phases';
import { useUtilization, type Days } from './data';
import { phaseBreakdownOption, phaseRows, wasteMoney } from './phaseBreakdown';
import { Section, SectionEmpty, Skeleton } from './Section';
import type { OverviewScope } from './types';

const Chart = lazy(() => import('../../components/Chart').then((m) => ({ default: m.Chart })));

/**
 * GPU-hours and money per phase over the page's days, from /api/v1/utilization: its money per phase sums to
 * its GPU instances' billed money (the `cost` shown beside), so waste is a share of that same figure.
 */
export function PhaseBreakdown({ scope, days }: { scope: OverviewScope; days: Days }) {
  const { t } = useTranslation();
  const usage = useUtilization(scope, days);
  const total = usage.data?.total;
  const currency = total?.currency || scope.currency;
  const rows = useMemo(() => (total ? phaseRows(total) : []), [total]);
  const waste = wasteMoney(rows);
  const option = useMemo(
    () =>
      phaseBreakdownOption(rows, currency, {
        money: t('dashboard.phases.money'),
        gpuHours: t('common.gpuHours'),
        waste: t('common.waste'),
      }),
    [rows, currency, t],
  );
  const money = (amount: string | null | undefined) => formatMoney(amount, currency);
  const idle = rows.find((r) => r.phase === 'idle')?.cost ?? '0.00';
  const dataBound = rows.find((r) => r.phase === 'data_processing')?.cost ?? '0.00';

  return (
    <Section
      title={t('dashboard.phases.title')}
      loading={usage.loading}
      error={usage.error}
      onRetry={usage.reload}
      testId="phase-section"
    >
      {rows.length === 0 ? (
        <SectionEmpty title={t('dashboard.phases.emptyTitle')} testId="phase-empty">
          {t('dashboard.phases.emptyBody')}
        </SectionEmpty>
      ) : (
        <>
          <p className="ov-waste" data-testid="phase-waste">
            {t('dashboard.phases.waste', {
              wasted: money(waste.wasted),
              share: formatPercent(ratio(waste.wasted, waste.total)),
              total: money(waste.total),
              idle: money(idle),
              dataBound: money(dataBound),
            })}
          </p>
          <Suspense fallback={<Skeleton height={220} />}>
            <Chart name="phase-breakdown" option={option} height={220} ariaLabel={t('dashboard.phases.chartLabel')} />
          </Suspense>
          <table className="table table--numbers ov-phase-table" aria-label={t('dashboard.phases.title')}>
            <thead>
              <tr>
                <th>{t('dashboard.phases.phase')}</th>
                <th>{t('common.gpuHours')}</th>
                <th>{t('dashboard.phases.money')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => [
                <tr key={r.phase} data-testid={`phase-row-${r.phase}`} className={r.waste ? 'ov-phase-table__waste' : undefined}>
                  <td>
                    <PhaseSwatch phase={r.phase} /> {PHASE_LABELS[r.phase]}
                  </td>
                  <td>{formatDecimal(r.gpuHours, 1)}</td>
                  <td>{money(r.cost)}</td>
                </tr>,
                // "No data" says why: no samples while running, stopped, or not analysed yet.
                ...(r.phase === 'unknown'
                  ? noDataRows(total?.no_data).map((n) => (
                      <tr key={`no-data-${n.reason}`} data-testid={`no-data-row-${n.reason}`} className="table__subrow">
                        <td>{NO_DATA_LABELS[n.reason]}</td>
                        <td>{formatDecimal(n.gpu_hours, 1)}</td>
                        <td>{money(n.cost)}</td>
                      </tr>
                    ))
                  : []),
              ])}
            </tbody>
          </table>
          <p className="muted ov-note">
            {t('dashboard.phases.evidence', {
              hours: formatDecimal(String(total?.gpu_hours ?? 0), 1),
              count: total?.instance_count ?? 0,
              util: total?.gpu_util_avg_pct == null ? '—' : formatPercent(total.gpu_util_avg_pct / 100),
            })}
          </p>
        </>
      )}
    </Section>
  );
}
