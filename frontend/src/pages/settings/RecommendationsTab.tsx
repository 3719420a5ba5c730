import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useMe } from '../../auth/AuthContext';
import { recommendationsApi } from '../../api/endpoints';
import type { ApiError } from '../../api/client';
import type { RecommendationSettings, ReservedPrice, ThresholdField, ThresholdGroup } from '../../api/types';
import { FormField } from '../../components/FormField';
import { ErrorBanner, FormErrorBanner, Spinner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { toApiError, useApiData } from '../../hooks';
import { i18n, translatedLabels } from '../../i18n';
import { AutomationPauseSection } from './AutomationPauseSection';
import { canManageOrg } from './permissions';

type ThresholdValue = ThresholdField['value'];

/** Every group the API names; a new one fails to compile here until it has a label. */
const GROUP_ORDER: Record<ThresholdGroup, number> = {
  general: 0,
  idle: 1,
  schedule: 2,
  downshift: 3,
  subscription: 4,
  spot: 5,
  downsize: 6,
  upsize: 7,
  pipeline: 8,
  thermal: 9,
};
const GROUP_LABELS = translatedLabels(Object.keys(GROUP_ORDER) as ThresholdGroup[], 'recommendationSettings.group');

/** The fields grouped by rule, the groups in the order the API first names them. */
function groupsOf(fields: ThresholdField[]): [ThresholdGroup, ThresholdField[]][] {
  const groups = new Map<ThresholdGroup, ThresholdField[]>();
  for (const field of fields) groups.set(field.rule, [...(groups.get(field.rule) ?? []), field]);
  return [...groups];
}

/** A value as the input shows it: '' for none, tags joined by commas, a number as the API sent it. */
export function textOf(value: ThresholdValue): string {
  if (value === null) return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/**
 * What a PATCH sends for an input's text: null for an empty input (back to the default), tags as a list, a
 * number when the text is a finite one. Other text is sent as typed, for the API to refuse by the field's name
 * (JSON has no Infinity: `1e400` would otherwise go out as null and silently reset the field).
 */
export function valueOf(field: ThresholdField, text: string): ThresholdValue {
  const trimmed = text.trim();
  if (!trimmed) return null;
  if (field.type === 'tags') return trimmed.split(/[,，\s]+/).filter(Boolean);
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : (trimmed as unknown as number);
}

/** The default in words: a rule's own lookback defaults to the general one, which has no number of its own. */
function defaultText(field: ThresholdField): string {
  return field.default === null ? i18n.t('recommendationSettings.generalLookback') : textOf(field.default);
}

const draftsOf = (fields: ThresholdField[]) => Object.fromEntries(fields.map((f) => [f.name, textOf(f.value)]));

function ThresholdsForm({ settings, onSaved }: { settings: RecommendationSettings; onSaved: (saved: RecommendationSettings) => void }) {
  const { t } = useTranslation();
  const [drafts, setDrafts] = useState<Record<string, string>>(() => draftsOf(settings.fields));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const draft = (field: ThresholdField) => drafts[field.name] ?? '';
  // Compared as values, so "0.90" for 0.9 or "a=b,c=d" for "a=b, c=d" is no change.
  const isChanged = (field: ThresholdField) => JSON.stringify(valueOf(field, draft(field))) !== JSON.stringify(field.value);
  const changed = settings.fields.filter(isChanged);
  const set = (name: string, text: string) => setDrafts((old) => ({ ...old, [name]: text }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const thresholds = Object.fromEntries(changed.map((f) => [f.name, valueOf(f, draft(f))]));
      const saved = await recommendationsApi.updateSettings({ thresholds });
      setDrafts(draftsOf(saved.fields));
      setNotice(t('recommendationSettings.saved', { count: changed.length }));
      onSaved(saved);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={t('recommendationSettings.form')}>
      {notice && (
        <div className="alert alert--success" role="status">
          {notice}
        </div>
      )}
      {groupsOf(settings.fields).map(([group, fields]) => (
        <fieldset key={group} className="card threshold-group">
          <legend>{GROUP_LABELS[group]}</legend>
          <div className="form-grid">
            {fields.map((field) => (
              <FormField
                key={field.name}
                id={`threshold-${field.name}`}
                label={
                  <>
                    {field.label} <code className="muted small">{field.name}</code>
                  </>
                }
                hint={
                  <>
                    {field.help} {t('recommendationSettings.default', { value: defaultText(field) })}
                  </>
                }
                error={error?.field(`thresholds.${field.name}`)}
              >
                {(control) => (
                  <div className="threshold-control" data-testid={`threshold-${field.name}`}>
                    <input
                      {...control}
                      value={draft(field)}
                      inputMode={field.type === 'tags' ? 'text' : 'decimal'}
                      placeholder={defaultText(field)}
                      onChange={(e) => set(field.name, e.target.value)}
                    />
                    {isChanged(field) ? (
                      <span className="badge">{t('recommendationSettings.changed')}</span>
                    ) : (
                      field.value !== null && <span className="badge badge--muted">{t('recommendationSettings.overridden')}</span>
                    )}
                    {draft(field).trim() !== '' && (
                      <button
                        type="button"
                        className="btn btn--small btn--ghost"
                        aria-label={t('recommendationSettings.resetField', { name: field.label })}
                        onClick={() => set(field.name, '')}
                      >
                        {t('recommendationSettings.reset')}
                      </button>
                    )}
                  </div>
                )}
              </FormField>
            ))}
          </div>
        </fieldset>
      ))}
      <FormErrorBanner error={error} inlineFields={settings.fields.map((f) => `thresholds.${f.name}`)} />
      <div className="form-actions">
        <button type="submit" className="btn btn--primary" disabled={busy || changed.length === 0}>
          {busy
            ? t('common.saving')
            : changed.length === 0
              ? t('recommendationSettings.nothingToSave')
              : t('recommendationSettings.save', { count: changed.length })}
        </button>
        <button type="button" className="btn" disabled={busy || changed.length === 0} onClick={() => setDrafts(draftsOf(settings.fields))}>
          {t('recommendationSettings.discard')}
        </button>
      </div>
    </form>
  );
}

/** What a lead, finance or viewer sees: the thresholds in force, without a control. */
function ThresholdsTable({ fields }: { fields: ThresholdField[] }) {
  const { t } = useTranslation();
  return (
    <>
      {groupsOf(fields).map(([group, members]) => (
        <section key={group} className="card" aria-label={GROUP_LABELS[group]}>
          <h3 className="card__title">{GROUP_LABELS[group]}</h3>
          <table className="table">
            <thead>
              <tr>
                <th>{t('recommendationSettings.col.threshold')}</th>
                <th>{t('recommendationSettings.col.inForce')}</th>
                <th>{t('recommendationSettings.col.default')}</th>
                <th>{t('recommendationSettings.col.meaning')}</th>
              </tr>
            </thead>
            <tbody>
              {members.map((field) => (
                <tr key={field.name}>
                  <td>
                    <code>{field.name}</code>
                  </td>
                  <td>
                    {field.value === null ? defaultText(field) : textOf(field.value)}
                    {field.value !== null && <span className="badge badge--muted">{t('recommendationSettings.overridden')}</span>}
                  </td>
                  <td>{defaultText(field)}</td>
                  <td className="muted">{field.help}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </>
  );
}

/** The reserved-instance prices: read here, written through the API (a table per organization). */
function ReservedPricesTable({ prices, currency }: { prices: ReservedPrice[]; currency: string }) {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby="reserved-prices-title">
      <h3 id="reserved-prices-title" className="card__title">
        {t('recommendationSettings.prices.title')}
      </h3>
      <p className="muted">{t('recommendationSettings.prices.intro')}</p>
      {prices.length === 0 ? (
        <p className="muted">{t('recommendationSettings.prices.empty')}</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>{t('recommendationSettings.prices.region')}</th>
              <th>{t('recommendationSettings.prices.instanceType')}</th>
              <th className="num">{t('recommendationSettings.prices.hourly')}</th>
              <th className="num">{t('recommendationSettings.prices.term')}</th>
            </tr>
          </thead>
          <tbody>
            {prices.map((p) => (
              <tr key={`${p.region} ${p.instance_type} ${p.term_years}`}>
                <td>{p.region}</td>
                <td>{p.instance_type}</td>
                <td className="num">{t('recommendationSettings.prices.perHour', { amount: p.hourly, currency: p.currency || currency })}</td>
                <td className="num">{t('recommendationSettings.prices.years', { count: p.term_years })}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted small">{t('recommendationSettings.prices.viaApi')}</p>
    </section>
  );
}

/** The thresholds of every recommendation rule, grouped by rule; owners and admins override them. */
export function RecommendationsTab() {
  const org = useMe().organization!;
  const { t } = useTranslation();
  const canManage = canManageOrg(org.role);
  const queryClient = useQueryClient();
  const settings = useApiData(queryKeys.recommendationSettings, (signal) => recommendationsApi.settings(signal));
  return (
    <section aria-label={t('recommendationSettings.tab')}>
      <div className="section-header">
        <div>
          <h2>{t('recommendationSettings.tab')}</h2>
          <p className="muted">{t('recommendationSettings.intro')}</p>
        </div>
      </div>
      {!canManage && <p className="muted">{t('recommendationSettings.cannotManage')}</p>}
      {canManage && <AutomationPauseSection />}
      {settings.loading && <Spinner label={t('recommendationSettings.loading')} />}
      <ErrorBanner error={settings.error} onRetry={settings.reload} />
      {settings.data &&
        (canManage ? (
          <ThresholdsForm
            settings={settings.data}
            onSaved={(saved) => queryClient.setQueryData(queryKeys.recommendationSettings, saved)}
          />
        ) : (
          <ThresholdsTable fields={settings.data.fields} />
        ))}
      {settings.data && <ReservedPricesTable prices={settings.data.reserved_prices} currency={org.currency} />}
    </section>
  );
}
