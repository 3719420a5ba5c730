import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Budget } from '../../api/types';
import { ErrorBanner } from '../../components/ui';
import { formatDate } from '../../format';
import { formatMoney, formatPercent } from '../../money';
import { changeRatio, daysSoFar, sameDaysLastMonth } from './kpi';
import { useBudgets, useCostTotal, useMonthToDate } from './data';
import { Skeleton } from './Section';
import type { OverviewScope } from './types';

/** A calendar day (yyyy-mm-dd) as the UI language writes it; noon UTC keeps the day in any timezone. */
function day(iso: string): string {
  return formatDate(`${iso}T12:00:00Z`, 'UTC');
}

function Card({ label, testId, children }: { label: string; testId?: string; children: React.ReactNode }) {
  return (
    <div className="stat ov-kpi" data-testid={testId}>
      <div className="stat__label">{label}</div>
      {children}
    </div>
  );
}

/** Month-to-date spend, the month-end forecast, the budget and the change vs the same days of last month. */
export function KpiCards({ scope }: { scope: OverviewScope }) {
  const { t } = useTranslation();
  const report = useMonthToDate(scope);
  const mtd = report.data?.month_to_date ?? null;
  const compare = mtd ? sameDaysLastMonth(mtd) : null;
  const previous = useCostTotal(scope, compare?.previous ?? null);
  const money = (amount: string | null | undefined) => formatMoney(amount, report.data?.currency ?? scope.currency);

  if (report.error) {
    return (
      <section className="card" aria-label={t('dashboard.kpi.label')}>
        <ErrorBanner error={report.error} onRetry={report.reload} />
      </section>
    );
  }
  if (!mtd) {
    return (
      <div className="stats ov-kpis" aria-label={t('dashboard.kpi.label')}>
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="stat ov-kpi">
            <Skeleton rows={2} height={56} />
          </div>
        ))}
      </div>
    );
  }
  const change = compare && previous.data ? changeRatio(mtd.cost_before_today, previous.data.total) : null;

  return (
    <div className="stats ov-kpis" aria-label={t('dashboard.kpi.label')}>
      <Card label={t('dashboard.kpi.mtd')}>
        <div className="stat__value" data-testid="mtd-spend">
          {money(mtd.cost)}
        </div>
        <div className="stat__detail muted" data-testid="mtd-spend-evidence">
          {t('dashboard.kpi.mtdEvidence', {
            count: daysSoFar(mtd),
            from: day(mtd.month_start),
            to: day(mtd.today),
          })}
        </div>
      </Card>

      <Card label={t('dashboard.kpi.forecast', { month: day(mtd.month_end) })}>
        <div className="stat__value" data-testid="mtd-forecast">
          {money(mtd.forecast)}
        </div>
        <div className="stat__detail muted" data-testid="mtd-forecast-evidence" title={t('dashboard.kpi.forecastMethod', { days: mtd.run_rate_days })}>
          {t('dashboard.kpi.forecastEvidence', {
            before: money(mtd.cost_before_today),
            rate: money(mtd.run_rate_daily),
            rateDays: mtd.run_rate_days,
            count: mtd.days_left,
            known: money(mtd.known_purchases),
          })}
        </div>
      </Card>

      <BudgetCard scope={scope} />

      <Card label={t('dashboard.kpi.change')}>
        <div className="stat__value" data-testid="change-vs-last-month">
          {!compare ? '—' : previous.loading ? '…' : change === null ? '—' : t(change >= 0 ? 'dashboard.kpi.up' : 'dashboard.kpi.down', { pct: formatPercent(Math.abs(change)) })}
        </div>
        <div className="stat__detail muted" data-testid="change-evidence">
          {!compare ? (
            t('dashboard.kpi.changeFirstDay')
          ) : previous.error ? (
            <ErrorBanner error={previous.error} onRetry={previous.reload} />
          ) : previous.data ? (
            t(change === null ? 'dashboard.kpi.changeNothingBefore' : 'dashboard.kpi.changeEvidence', {
              now: money(mtd.cost_before_today),
              nowFrom: day(compare.current.start),
              nowTo: day(compare.current.end),
              before: money(previous.data.total),
              beforeFrom: day(compare.previous.start),
              beforeTo: day(compare.previous.end),
            })
          ) : null}
        </div>
      </Card>
    </div>
  );
}

function budgetOf(budgets: Budget[], scope: OverviewScope): Budget | undefined {
  return scope.project
    ? budgets.find((b) => b.scope === 'project' && b.project === scope.project?.id)
    : budgets.find((b) => b.scope === 'organization');
}

function BudgetCard({ scope }: { scope: OverviewScope }) {
  const { t } = useTranslation();
  const budgets = useBudgets();
  const budget = budgets.data ? budgetOf(budgets.data.results, scope) : undefined;
  const label = scope.project ? t('dashboard.budget.projectLabel') : t('dashboard.budget.label');
  if (budgets.error) {
    return (
      <Card label={label} testId="budget-status">
        <ErrorBanner error={budgets.error} onRetry={budgets.reload} />
      </Card>
    );
  }
  if (!budgets.data) {
    return (
      <div className="stat ov-kpi">
        <Skeleton rows={2} height={56} />
      </div>
    );
  }
  if (!budget) {
    return (
      <Card label={label} testId="budget-status">
        <div className="stat__value muted">—</div>
        <div className="stat__detail muted" data-testid="budget-empty">
          <Trans
            i18nKey={scope.project ? 'dashboard.budget.emptyProject' : 'dashboard.budget.empty'}
            components={{ settings: <Link to="/settings/budgets" /> }}
          />
        </div>
      </Card>
    );
  }
  const status = budget.status;
  const money = (amount: string) => formatMoney(amount, budget.currency);
  const over = Number(status.forecast_pct) > 100;
  return (
    <Card label={label} testId="budget-status">
      <div className={`stat__value${over ? ' text-danger' : ''}`}>
        {t('dashboard.budget.used', { pct: formatPercent(Number(status.percent_used) / 100) })}
      </div>
      <div className="ov-meter" aria-hidden="true">
        <span style={{ width: `${Math.min(100, Number(status.percent_used))}%` }} />
        <i style={{ left: `${Math.min(100, Number(status.forecast_pct))}%` }} />
      </div>
      <div className="stat__detail muted" data-testid="budget-evidence">
        {t('dashboard.budget.evidence', {
          spent: money(status.spent),
          amount: money(budget.amount),
          forecast: money(status.forecast),
          forecastPct: formatPercent(Number(status.forecast_pct) / 100),
        })}
      </div>
    </Card>
  );
}
