import { useTranslation } from 'react-i18next';
import { useMe } from '../../auth/AuthContext';
import { budgetsApi, projectsApi } from '../../api/endpoints';
import type { Budget, BudgetStatus } from '../../api/types';
import { RowEditDelete } from '../../components/RowEditDelete';
import { ErrorBanner } from '../../components/ui';
import { PaginatedTable } from '../../components/PaginatedTable';
import { queryKeys } from '../../data/keys';
import { i18n } from '../../i18n';
import { formatDecimal, formatMoney } from '../../money';
import { useApiData, usePaginatedList, useRowAction } from '../../hooks';
import { BudgetForm, budgetFormFrom, budgetInputFrom, EMPTY_BUDGET, type BudgetFormValues } from './BudgetForm';
import { canManageOrg } from './permissions';
import { useEditForm } from './useEditForm';

/** Spend as a share of the amount, drawn as a bar (full at 100 %, red past it); the API's figure is the text. */
export function UsageBar({ status }: { status: BudgetStatus }) {
  const { t } = useTranslation();
  const pct = Number(status.percent_used);
  const width = Number.isFinite(pct) ? Math.max(0, Math.min(100, pct)) : 0;
  const tone = pct >= 100 ? 'danger' : pct >= 80 ? 'warning' : 'ok';
  return (
    <div className="usage">
      <div
        className="usage__bar"
        role="meter"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={width}
        aria-label={t('budgets.percentUsed')}
      >
        <div className={`usage__fill usage__fill--${tone}`} style={{ width: `${width}%` }} />
      </div>
      <span className="usage__text">{t('budgets.percent', { value: formatDecimal(status.percent_used, 1) })}</span>
    </div>
  );
}

function crossedText(status: BudgetStatus): string[] {
  return status.thresholds_crossed.map((c) =>
    c.basis === 'forecast'
      ? i18n.t('budgets.crossedForecast', { pct: c.threshold_pct })
      : i18n.t('budgets.crossedActual', { pct: c.threshold_pct }),
  );
}

export function BudgetsTab() {
  const org = useMe().organization!;
  const { t } = useTranslation();
  const canManage = canManageOrg(org.role);
  const list = usePaginatedList<Budget>(queryKeys.budgets, (q, signal) => budgetsApi.list(q, signal), 50);
  const rowAction = useRowAction(list.reload);
  const projects = useApiData([...queryKeys.projects, 'all'], (signal) => projectsApi.list({ page: 1, pageSize: 500 }, signal));
  const projectNames = new Map((projects.data?.results ?? []).map((p) => [p.id, p.name]));
  const { mode, open, save: saveForm, formError, busy, confirmId, setConfirmId } = useEditForm(rowAction, list.reload);

  const save = (values: BudgetFormValues) =>
    saveForm(async (current) => {
      const input = budgetInputFrom(values);
      const saved = current.kind === 'edit' ? await budgetsApi.update(current.id, input) : await budgetsApi.create(input);
      return t('budgets.saved', { name: saved?.name ?? input.name });
    });

  const renderRow = (b: Budget) => {
    const crossed = crossedText(b.status);
    const currency = b.currency;
    return (
      <tr key={b.id}>
        <td>
          <div className="cell-title">{b.name}</div>
          <div className="cell-sub">{b.project === null ? t('budgets.wholeOrg') : projectNames.get(b.project) ?? `#${b.project}`}</div>
        </td>
        <td className="num">{formatMoney(b.amount, currency)}</td>
        <td className="num">{formatMoney(b.status.spent, currency)}</td>
        <td className="num" title={b.status.forecast_method}>
          {formatMoney(b.status.forecast, currency)}
          <div className="cell-sub">
            {t('budgets.forecastBasis', {
              before: formatMoney(b.status.spent_before_today, currency),
              daily: formatMoney(b.status.daily_average, currency),
              days: formatDecimal(b.status.days_left, 1),
              known: formatMoney(b.status.known_purchases, currency),
            })}
          </div>
          <div className="cell-sub">{t('budgets.forecastPct', { value: formatDecimal(b.status.forecast_pct, 1) })}</div>
        </td>
        <td>
          <UsageBar status={b.status} />
        </td>
        <td>
          {crossed.length === 0 ? (
            <span className="muted">{t('budgets.noneCrossed')}</span>
          ) : (
            <ul className="chips">
              {crossed.map((text) => (
                <li key={text} className="chip">
                  {text}
                </li>
              ))}
            </ul>
          )}
        </td>
        {canManage && (
          <RowEditDelete
            name={b.name}
            question={t('budgets.deleteQuestion')}
            onEdit={() => open({ kind: 'edit', id: b.id })}
            onDelete={() => void rowAction.run(b.id, () => budgetsApi.remove(b.id), t('budgets.deleted', { name: b.name }))}
            confirming={confirmId === b.id}
            onConfirmingChange={(c) => setConfirmId(c ? b.id : null)}
            busy={rowAction.busyId === b.id}
          />
        )}
      </tr>
    );
  };

  const editing = mode.kind === 'edit' ? list.items.find((b) => b.id === mode.id) : undefined;
  const month = list.items[0]?.status.month;

  return (
    <section aria-label={t('budgets.tab')}>
      <div className="section-header">
        <div>
          <h2>{t('budgets.tab')}</h2>
          <p className="muted">{t('budgets.intro', { timeZone: org.timezone })}</p>
          {month && <p className="muted">{t('budgets.month', { month })}</p>}
        </div>
        {canManage && mode.kind === 'closed' && (
          <button type="button" className="btn btn--primary" onClick={() => open({ kind: 'create' })}>
            {t('budgets.new')}
          </button>
        )}
      </div>
      {!canManage && <p className="muted">{t('budgets.cannotManage')}</p>}
      <ErrorBanner error={projects.error} onRetry={projects.reload} />
      {canManage && mode.kind !== 'closed' && (
        <BudgetForm
          key={mode.kind === 'edit' ? mode.id : 'new'}
          initial={editing ? budgetFormFrom(editing) : EMPTY_BUDGET}
          projects={projects.data?.results ?? []}
          currency={editing?.currency ?? org.currency}
          submitLabel={mode.kind === 'edit' ? t('budgets.save') : t('budgets.create')}
          error={formError}
          busy={busy}
          onSubmit={(values) => void save(values)}
          onCancel={() => open({ kind: 'closed' })}
        />
      )}
      <PaginatedTable
        list={list}
        columns={[
          t('budgets.col.budget'),
          t('budgets.col.amount'),
          t('budgets.col.spent'),
          t('budgets.col.forecast'),
          t('budgets.col.used'),
          t('budgets.col.crossed'),
        ]}
        withActions={canManage}
        loadingLabel={t('budgets.loading')}
        emptyText={canManage ? t('budgets.emptyManager') : t('budgets.empty')}
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
      <p className="muted small">{t('budgets.howComputed')}</p>
    </section>
  );
}

