import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { InstancePhases, CostReport } from '../../api/types';
import { CostSourceNote, PhaseSwatch, StatCard } from '../../components/analysis';
import { EmptyState, ErrorBanner } from '../../components/ui';
import type { ApiData } from '../../hooks';
import { formatDecimal, formatMoney, formatPercent, ratio, sumDecimals } from '../../money';
import { formatMinutes, NO_DATA_LABELS, noDataRows, PHASE_LABELS, PHASES } from '../../phases';
import { ChartSkeleton } from './ChartSkeleton';

const DailyCostChart = lazy(() => import('./InstanceCharts').then((m) => ({ default: m.DailyCostChart })));

/** Money and time per phase over the period: the waste cards and the totals table. */
export function PhasesBody({ data }: { data: InstancePhases }) {
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
            return [
              <tr key={p} data-testid={`phase-row-${p}`}>
                <td>
                  <PhaseSwatch phase={p} />
                  {PHASE_LABELS[p]}
                </td>
                <td>{formatMinutes(f.minutes)}</td>
                <td>{formatDecimal(f.gpu_hours)}</td>
                <td>{money(f.cost)}</td>
                <td>{share(f.cost)}</td>
              </tr>,
              // "No data" says why: no samples while running, stopped, or not analysed yet.
              ...(p === 'unknown'
                ? noDataRows(data.no_data).map((r) => (
                    <tr key={`no-data-${r.reason}`} data-testid={`no-data-row-${r.reason}`} className="table__subrow">
                      <td>{NO_DATA_LABELS[r.reason]}</td>
                      <td>{formatMinutes(r.minutes)}</td>
                      <td>{formatDecimal(r.gpu_hours)}</td>
                      <td>{money(r.cost)}</td>
                      <td>{share(r.cost)}</td>
                    </tr>
                  ))
                : []),
            ];
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

/** The bills' money per day of the period, stacked by phase. */
export function DailyCostSection({ cost }: { cost: ApiData<CostReport> }) {
  const { t } = useTranslation();
  const report = cost.data;
  const empty = report !== null && Number(report.total) === 0;
  return (
    <section className="card" aria-labelledby="daily-cost-title">
      <div className="section-header">
        <h2 id="daily-cost-title">{t('instanceDetail.dailyCost.title')}</h2>
        {report && !empty && (
          <p className="muted" data-testid="daily-cost-total">
            {t('instanceDetail.dailyCost.total', { total: formatMoney(report.total, report.currency) })}
          </p>
        )}
      </div>
      <ErrorBanner error={cost.error} onRetry={cost.reload} />
      {cost.loading && <ChartSkeleton height={260} label={t('instanceDetail.dailyCost.loading')} />}
      {empty && (
        <EmptyState title={t('instanceDetail.dailyCost.empty.title')} icon="¥" testId="daily-cost-empty">
          <p>{t('instanceDetail.dailyCost.empty.body')}</p>
        </EmptyState>
      )}
      {report && !empty && (
        <>
          <Suspense fallback={<ChartSkeleton height={260} label={t('common.loadingChart')} />}>
            <DailyCostChart report={report} />
          </Suspense>
          {report.group_by.includes('phase') && <p className="muted small">{t('instanceDetail.dailyCost.byPhase')}</p>}
        </>
      )}
    </section>
  );
}
