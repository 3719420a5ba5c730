import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import type { ApiError } from '../../api/client';
import type { Budget, BudgetInput, Project } from '../../api/types';
import { FormActions } from '../../components/FormActions';
import { FormField } from '../../components/FormField';
import { FormErrorBanner } from '../../components/ui';
import { ProjectScopeField } from './ProjectScopeField';

export interface BudgetFormValues {
  name: string;
  project: string;
  amount: string;
  actual: string;
  forecast: string;
}

export const EMPTY_BUDGET: BudgetFormValues = { name: '', project: '', amount: '', actual: '50, 80, 100', forecast: '50, 80, 100' };

export function budgetFormFrom(b: Budget): BudgetFormValues {
  return {
    name: b.name,
    project: b.project === null ? '' : String(b.project),
    amount: b.amount,
    actual: b.actual_thresholds_pct.join(', '),
    forecast: b.forecast_thresholds_pct.join(', '),
  };
}

/** "50, 80,100" -> [50, 80, 100]; a piece that is not a whole number is sent as is, for the API to name it. */
export function parseThresholds(text: string): number[] {
  return text
    .split(/[,，\s]+/)
    .filter(Boolean)
    .map((piece) => (/^\d+$/.test(piece) ? Number(piece) : (piece as unknown as number)));
}

export function budgetInputFrom(v: BudgetFormValues): BudgetInput {
  return {
    name: v.name.trim(),
    project: v.project ? Number(v.project) : null,
    amount: v.amount.trim(),
    actual_thresholds_pct: parseThresholds(v.actual),
    forecast_thresholds_pct: parseThresholds(v.forecast),
  };
}

const INLINE = ['name', 'project', 'amount', 'actual_thresholds_pct', 'forecast_thresholds_pct'];

export function BudgetForm({
  initial,
  projects,
  currency,
  submitLabel,
  error,
  busy,
  onSubmit,
  onCancel,
}: {
  initial: BudgetFormValues;
  projects: Project[];
  currency: string;
  submitLabel: string;
  error: ApiError | null;
  busy: boolean;
  onSubmit: (values: BudgetFormValues) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [v, setV] = useState(initial);
  const set = (key: keyof BudgetFormValues, value: string) => setV((old) => ({ ...old, [key]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(v);
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-label={t('budgets.form')}>
      <div className="form-grid">
        <FormField id="budget-name" label={t('budgets.name')} error={error?.field('name')}>
          {(control) => <input {...control} value={v.name} maxLength={100} onChange={(e) => set('name', e.target.value)} />}
        </FormField>
        <ProjectScopeField
          id="budget-project"
          label={t('budgets.scope')}
          everythingLabel={t('budgets.wholeOrg')}
          projects={projects}
          value={v.project}
          onChange={(value) => set('project', value)}
          error={error?.field('project')}
        />
        <FormField
          id="budget-amount"
          label={t('budgets.amountLabel', { currency })}
          hint={t('budgets.amountHint')}
          error={error?.field('amount')}
        >
          {(control) => (
            <input {...control} inputMode="decimal" value={v.amount} onChange={(e) => set('amount', e.target.value)} />
          )}
        </FormField>
        <div />
        <FormField
          id="budget-actual"
          label={t('budgets.actualThresholds')}
          hint={t('budgets.thresholdsHint')}
          error={error?.field('actual_thresholds_pct')}
        >
          {(control) => <input {...control} value={v.actual} onChange={(e) => set('actual', e.target.value)} />}
        </FormField>
        <FormField
          id="budget-forecast"
          label={t('budgets.forecastThresholds')}
          hint={t('budgets.thresholdsHint')}
          error={error?.field('forecast_thresholds_pct')}
        >
          {(control) => <input {...control} value={v.forecast} onChange={(e) => set('forecast', e.target.value)} />}
        </FormField>
      </div>
      <FormErrorBanner error={error} inlineFields={INLINE} />
      <FormActions submitLabel={submitLabel} busy={busy} onCancel={onCancel} />
    </form>
  );
}
