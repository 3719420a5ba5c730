import { useTranslation } from 'react-i18next';
import { useRef, useState, type FormEvent } from 'react';
import { alertRulesApi } from '../../api/endpoints';
import type { ApiError } from '../../api/client';
import type { Project, ThresholdComparison, ThresholdMetric, ThresholdRule, ThresholdRuleInput } from '../../api/types';
import { RowEditDelete } from '../../components/RowEditDelete';
import { FormActions } from '../../components/FormActions';
import { FormField } from '../../components/FormField';
import { PaginatedTable } from '../../components/PaginatedTable';
import { FormErrorBanner } from '../../components/ui';
import { ProjectScopeField } from './ProjectScopeField';
import { queryKeys } from '../../data/keys';
import { i18n, translatedLabels } from '../../i18n';
import { usePaginatedList, useRowAction } from '../../hooks';
import { copyText } from './ApiKeysTab';
import { useEditForm } from './useEditForm';

export const METRICS: ThresholdMetric[] = [
  'gpu_util_pct',
  'gpu_mem_used_pct',
  'gpu_mem_used_mb',
  'gpu_temp_c',
  'gpu_power_w',
  'cpu_util_pct',
  'mem_util_pct',
];
export const METRIC_LABELS: Record<ThresholdMetric, string> = translatedLabels(METRICS, 'alertsSettings.metric');

export function ruleCondition(rule: ThresholdRule): string {
  const values = { metric: METRIC_LABELS[rule.metric] ?? rule.metric, threshold: rule.threshold, minutes: rule.duration_minutes };
  return rule.comparison === 'below' ? i18n.t('alertsSettings.rules.below', values) : i18n.t('alertsSettings.rules.above', values);
}

/** The tccli call for the rule, with a copy button (the select-and-copy fallback when the clipboard is closed). */
export function TencentCommand({ rule }: { rule: ThresholdRule }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLInputElement | null>(null);
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const command = rule.tencent_alarm_policy.command;
  return (
    <details className="disclosure">
      <summary className="disclosure__toggle">{t('alertsSettings.rules.tencent')}</summary>
      <div className="disclosure__body">
        <p className="muted">{t('alertsSettings.rules.tencentHelp')}</p>
        <pre className="command" data-testid={`tccli-${rule.id}`}>
          {command}
        </pre>
        <input ref={ref} className="visually-hidden" readOnly value={command} tabIndex={-1} aria-hidden="true" />
        <button
          type="button"
          className="btn btn--small"
          onClick={() => void copyText(command, ref.current).then((ok) => setCopied(ok ? 'copied' : 'failed'))}
          aria-label={t('alertsSettings.rules.copyFor', { name: rule.name })}
        >
          {copied === 'copied' ? t('common.copied') : t('common.copy')}
        </button>
        {copied === 'failed' && <span className="muted">{t('alertsSettings.rules.copyFailed')}</span>}
      </div>
    </details>
  );
}

interface RuleValues {
  name: string;
  metric: ThresholdMetric;
  comparison: ThresholdComparison;
  threshold: string;
  duration: string;
  project: string;
  enabled: boolean;
}

const EMPTY_RULE: RuleValues = {
  name: '',
  metric: 'gpu_util_pct',
  comparison: 'below',
  threshold: '30',
  duration: '10',
  project: '',
  enabled: true,
};

function ruleValues(r: ThresholdRule): RuleValues {
  return {
    name: r.name,
    metric: r.metric,
    comparison: r.comparison,
    threshold: String(r.threshold),
    duration: String(r.duration_minutes),
    project: r.project === null ? '' : String(r.project),
    enabled: r.enabled,
  };
}

function ruleInput(v: RuleValues): ThresholdRuleInput {
  return {
    name: v.name.trim(),
    metric: v.metric,
    comparison: v.comparison,
    threshold: Number(v.threshold),
    duration_minutes: Number(v.duration),
    project: v.project ? Number(v.project) : null,
    enabled: v.enabled,
  };
}

function RuleForm({
  initial,
  projects,
  error,
  busy,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: RuleValues;
  projects: Project[];
  error: ApiError | null;
  busy: boolean;
  submitLabel: string;
  onSubmit: (v: RuleValues) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [v, setV] = useState(initial);
  const set = <K extends keyof RuleValues>(k: K, value: RuleValues[K]) => setV((old) => ({ ...old, [k]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(v);
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-label={t('alertsSettings.rules.form')}>
      <div className="form-grid">
        <FormField id="rule-name" label={t('alertsSettings.rules.name')} error={error?.field('name')}>
          {(c) => <input {...c} value={v.name} maxLength={100} onChange={(e) => set('name', e.target.value)} />}
        </FormField>
        <FormField id="rule-metric" label={t('alertsSettings.rules.metricLabel')} error={error?.field('metric')}>
          {(c) => (
            <select {...c} value={v.metric} onChange={(e) => set('metric', e.target.value as ThresholdMetric)}>
              {METRICS.map((m) => (
                <option key={m} value={m}>
                  {METRIC_LABELS[m]}
                </option>
              ))}
            </select>
          )}
        </FormField>
        <FormField id="rule-comparison" label={t('alertsSettings.rules.comparison')} error={error?.field('comparison')}>
          {(c) => (
            <select {...c} value={v.comparison} onChange={(e) => set('comparison', e.target.value as ThresholdComparison)}>
              <option value="below">{t('alertsSettings.rules.comparisonBelow')}</option>
              <option value="above">{t('alertsSettings.rules.comparisonAbove')}</option>
            </select>
          )}
        </FormField>
        <FormField id="rule-threshold" label={t('alertsSettings.rules.threshold')} error={error?.field('threshold')}>
          {(c) => <input {...c} inputMode="decimal" value={v.threshold} onChange={(e) => set('threshold', e.target.value)} />}
        </FormField>
        <FormField id="rule-duration" label={t('alertsSettings.rules.duration')} error={error?.field('duration_minutes')}>
          {(c) => <input {...c} type="number" min={1} value={v.duration} onChange={(e) => set('duration', e.target.value)} />}
        </FormField>
        <ProjectScopeField
          id="rule-project"
          label={t('alertsSettings.rules.scope')}
          everythingLabel={t('alertsSettings.allProjects')}
          projects={projects}
          value={v.project}
          onChange={(value) => set('project', value)}
          error={error?.field('project')}
        />
      </div>
      <label className="check">
        <input type="checkbox" checked={v.enabled} onChange={(e) => set('enabled', e.target.checked)} />
        {t('alertsSettings.rules.enabled')}
      </label>
      <FormErrorBanner
        error={error}
        inlineFields={['name', 'metric', 'comparison', 'threshold', 'duration_minutes', 'project']}
      />
      <FormActions submitLabel={submitLabel} busy={busy} onCancel={onCancel} />
    </form>
  );
}

export function AlertRulesSection({
  canManage,
  projects,
  projectName,
}: {
  canManage: boolean;
  projects: Project[];
  projectName: (id: number | null) => string;
}) {
  const { t } = useTranslation();
  const list = usePaginatedList<ThresholdRule>(queryKeys.alertRules, (q, signal) => alertRulesApi.list(q, signal), 50);
  const rowAction = useRowAction(list.reload);
  const { mode, open, save: saveForm, formError, busy, confirmId, setConfirmId } = useEditForm(rowAction, list.reload);
  const save = (v: RuleValues) =>
    saveForm(async (current) => {
      if (current.kind === 'edit') await alertRulesApi.update(current.id, ruleInput(v));
      else await alertRulesApi.create(ruleInput(v));
      return t('alertsSettings.rules.saved', { name: v.name.trim() });
    });
  const editing = mode.kind === 'edit' ? list.items.find((r) => r.id === mode.id) : undefined;

  const renderRow = (r: ThresholdRule) => (
    <tr key={r.id} className={r.enabled ? undefined : 'row--muted'}>
      <td>
        <div className="cell-title">{r.name}</div>
        <TencentCommand rule={r} />
      </td>
      <td>{ruleCondition(r)}</td>
      <td>{projectName(r.project)}</td>
      <td>{r.enabled ? t('alertsSettings.rules.on') : t('alertsSettings.rules.off')}</td>
      {canManage && (
        <RowEditDelete
          name={r.name}
          question={t('alertsSettings.deleteQuestion')}
          onEdit={() => open({ kind: 'edit', id: r.id })}
          onDelete={() => void rowAction.run(r.id, () => alertRulesApi.remove(r.id), t('alertsSettings.deleted', { name: r.name }))}
          confirming={confirmId === r.id}
          onConfirmingChange={(c) => setConfirmId(c ? r.id : null)}
          busy={rowAction.busyId === r.id}
        />
      )}
    </tr>
  );

  return (
    <section aria-labelledby="rules-title">
      <div className="section-header">
        <div>
          <h3 id="rules-title">{t('alertsSettings.rules.title')}</h3>
          <p className="muted">{t('alertsSettings.rules.intro')}</p>
        </div>
        {canManage && mode.kind === 'closed' && (
          <button type="button" className="btn btn--primary" onClick={() => open({ kind: 'create' })}>
            {t('alertsSettings.rules.new')}
          </button>
        )}
      </div>
      {canManage && mode.kind !== 'closed' && (
        <RuleForm
          key={mode.kind === 'edit' ? mode.id : 'new'}
          initial={editing ? ruleValues(editing) : EMPTY_RULE}
          projects={projects}
          error={formError}
          busy={busy}
          submitLabel={mode.kind === 'edit' ? t('alertsSettings.save') : t('alertsSettings.rules.create')}
          onSubmit={(v) => void save(v)}
          onCancel={() => open({ kind: 'closed' })}
        />
      )}
      <PaginatedTable
        list={list}
        columns={[
          t('alertsSettings.rules.col.rule'),
          t('alertsSettings.rules.col.condition'),
          t('alertsSettings.rules.col.scope'),
          t('alertsSettings.rules.col.enabled'),
        ]}
        withActions={canManage}
        loadingLabel={t('alertsSettings.rules.loading')}
        emptyText={canManage ? t('alertsSettings.rules.emptyManager') : t('alertsSettings.rules.empty')}
        renderRow={renderRow}
        notice={rowAction.notice}
        actionError={rowAction.error}
      />
    </section>
  );
}
