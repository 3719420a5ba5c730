/** The connect and edit form of a Tencent Cloud account (Settings → Cloud accounts). */
import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import type {
  CloudAccount,
  CloudAccountChanges,
  CloudAccountInput,
  CloudSite,
  ConnectionTestResult,
  EndpointScheme,
  TencentRegion,
} from '../../api/types';
import { SITE_LABELS, TENCENT_REGIONS } from '../../api/cloudChoices';
import { cloudAccountsApi } from '../../api/endpoints';
import { toApiError } from '../../hooks';
import { FormErrorBanner } from '../../components/ui';
import { FormField, FormFieldset } from '../../components/FormField';

/** Every field has its message next to it; the banner lists only errors of other fields. */
const FORM_FIELDS: (keyof AccountFormValues)[] = [
  'name',
  'secret_id',
  'secret_key',
  'regions',
  'site',
  'endpoint',
  'endpoint_scheme',
];

/**
 * The form edits every connection field of the request, so none is missing while it is open. The automation
 * switch is not one of them: it has its own control beside the write credential (WriteCredentialSection).
 */
export type AccountFormValues = Required<Omit<CloudAccountInput, 'automation_enabled'>>;

export const EMPTY_FORM: AccountFormValues = {
  name: '',
  secret_id: '',
  secret_key: '',
  regions: [],
  site: 'china',
  endpoint: '',
  endpoint_scheme: 'https',
};

export function formFrom(account: CloudAccount): AccountFormValues {
  return {
    name: account.name,
    secret_id: account.secret_id,
    secret_key: '',
    // The account's regions, which the server took when they were saved.
    regions: [...account.regions] as TencentRegion[],
    site: account.site,
    endpoint: account.endpoint,
    endpoint_scheme: account.endpoint_scheme,
  };
}

/** The fields that differ from the account; an empty SecretKey means "keep the stored one". */
export function changesFrom(account: CloudAccount, form: AccountFormValues): CloudAccountChanges {
  const changes: CloudAccountChanges = {};
  if (form.name.trim() !== account.name) changes.name = form.name.trim();
  if (form.secret_id.trim() !== account.secret_id) changes.secret_id = form.secret_id.trim();
  if (form.secret_key) changes.secret_key = form.secret_key;
  const sameRegions =
    form.regions.length === account.regions.length && form.regions.every((r) => account.regions.includes(r));
  if (!sameRegions) changes.regions = form.regions;
  if (form.site !== account.site) changes.site = form.site;
  if (form.endpoint.trim() !== account.endpoint) changes.endpoint = form.endpoint.trim();
  if (form.endpoint_scheme !== account.endpoint_scheme) changes.endpoint_scheme = form.endpoint_scheme;
  return changes;
}

/** The form's values as the API takes them (trimmed), for saving or for a connection test. */
export function accountInput(form: AccountFormValues): AccountFormValues {
  return { ...form, name: form.name.trim(), secret_id: form.secret_id.trim(), endpoint: form.endpoint.trim() };
}

/** Tries the form's credentials against Tencent Cloud; nothing is saved. */
export function testConnection(form: AccountFormValues): Promise<ConnectionTestResult> {
  const { name: _name, ...input } = accountInput(form);
  return cloudAccountsApi.testConnection(input);
}

function RegionsField({
  idPrefix,
  value,
  onChange,
  error,
}: {
  idPrefix: string;
  value: TencentRegion[];
  onChange: (regions: TencentRegion[]) => void;
  error?: string;
}) {
  const { t } = useTranslation();
  const toggle = (code: TencentRegion, checked: boolean) => {
    // Keep the order of the list, whatever order the boxes were ticked in.
    const next = new Set(value);
    if (checked) next.add(code);
    else next.delete(code);
    onChange([
      ...TENCENT_REGIONS.map((r) => r.code).filter((c) => next.has(c)),
      ...value.filter((c) => next.has(c) && !TENCENT_REGIONS.some((r) => r.code === c)),
    ]);
  };
  const groups = [
    { key: 'mainland', label: t('cloudForm.mainland'), regions: TENCENT_REGIONS.filter((r) => r.mainland) },
    { key: 'abroad', label: t('cloudForm.abroad'), regions: TENCENT_REGIONS.filter((r) => !r.mainland) },
  ];
  // A region the account already has but this list does not offer stays visible (and can be unticked).
  const extra = value.filter((c) => !TENCENT_REGIONS.some((r) => r.code === c));
  return (
    <FormFieldset
      id={`${idPrefix}-regions`}
      className="regions"
      legend={t('cloudForm.regions')}
      hint={t('cloudForm.regionsHint')}
      error={error}
    >
      {groups.map((group) => (
        <div key={group.key} className="regions__group">
          <div className="regions__group-label">{group.label}</div>
          <div className="regions__list">
            {group.regions.map((r) => (
              <label key={r.code} className="check">
                <input
                  type="checkbox"
                  checked={value.includes(r.code)}
                  onChange={(e) => toggle(r.code, e.target.checked)}
                />
                <span>{r.city}</span> <code>{r.code}</code>
              </label>
            ))}
            {group.key === 'abroad' &&
              extra.map((code) => (
                <label key={code} className="check">
                  <input type="checkbox" checked onChange={(e) => toggle(code, e.target.checked)} />
                  <code>{code}</code>
                </label>
              ))}
          </div>
        </div>
      ))}
    </FormFieldset>
  );
}

export function AccountForm({
  idPrefix,
  label,
  initial,
  editing,
  submitLabel,
  submittingLabel,
  onSubmit,
  onCancel,
  onTest,
}: {
  idPrefix: string;
  label: string;
  initial: AccountFormValues;
  /** Editing an account: the SecretKey becomes an optional "Replace SecretKey". */
  editing: boolean;
  submitLabel: string;
  submittingLabel: string;
  /** Resolves when saved; a rejection is shown in the form. */
  onSubmit: (form: AccountFormValues) => Promise<void>;
  onCancel?: () => void;
  /** Offers "Test connection": tries the form's credentials without saving them. */
  onTest?: (form: AccountFormValues) => Promise<ConnectionTestResult>;
}) {
  const [form, setForm] = useState<AccountFormValues>(initial);
  const { t } = useTranslation();
  const [testing, setTesting] = useState(false);
  const [testResult, setTestResult] = useState<ConnectionTestResult | null>(null);
  const [advanced, setAdvanced] = useState(Boolean(initial.endpoint) || initial.endpoint_scheme !== 'https');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const set = <K extends keyof AccountFormValues>(field: K, value: AccountFormValues[K]) => {
    setForm((f) => ({ ...f, [field]: value }));
    setTestResult(null); // A result is about the values it was made with.
  };

  const test = async () => {
    if (!onTest) return;
    setTesting(true);
    setError(null);
    setTestResult(null);
    try {
      setTestResult(await onTest(form));
    } catch (err) {
      const apiErr = toApiError(err);
      if (apiErr.field('endpoint') || apiErr.field('endpoint_scheme')) setAdvanced(true);
      setError(apiErr);
    } finally {
      setTesting(false);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitting(true);
    setError(null);
    try {
      await onSubmit(form);
      setForm((f) => ({ ...f, secret_key: '' }));
      setSubmitting(false);
    } catch (err) {
      const apiErr = toApiError(err);
      if (apiErr.field('endpoint') || apiErr.field('endpoint_scheme')) setAdvanced(true);
      setError(apiErr);
      setSubmitting(false);
    }
  };

  const fieldError = (name: string) => error?.field(name);
  const id = (name: string) => `${idPrefix}-${name}`;

  return (
    <form className="card account-form" onSubmit={(e) => void submit(e)} noValidate aria-label={label}>
      <h3 className="card__title">{label}</h3>
      <FormErrorBanner error={error} inlineFields={FORM_FIELDS} />
      <div className="form-grid">
        <FormField id={id('name')} label={t('members.col.name')} error={fieldError('name')}>
          {(control) => (
            <input
              {...control}
              placeholder={t('cloudForm.namePlaceholder')}
              maxLength={100}
              value={form.name}
              onChange={(e) => set('name', e.target.value)}
            />
          )}
        </FormField>
        <FormField id={id('site')} label={t('cloudForm.site')} error={fieldError('site')}>
          {(control) => (
            <select {...control} value={form.site} onChange={(e) => set('site', e.target.value as CloudSite)}>
              <option value="china">{SITE_LABELS.china}</option>
              <option value="intl">{SITE_LABELS.intl}</option>
            </select>
          )}
        </FormField>
        <FormField id={id('secret_id')} label="SecretId" error={fieldError('secret_id')}>
          {(control) => (
            <input
              {...control}
              className="mono"
              autoComplete="off"
              spellCheck={false}
              placeholder="AKID…"
              value={form.secret_id}
              onChange={(e) => set('secret_id', e.target.value)}
            />
          )}
        </FormField>
        <FormField id={id('secret_key')} label={editing ? t('cloudForm.replaceSecretKey') : 'SecretKey'} error={fieldError('secret_key')}>
          {(control) => (
            <input
              {...control}
              type="password"
              className="mono"
              autoComplete="new-password"
              spellCheck={false}
              placeholder={editing ? t('cloudForm.keepKey') : undefined}
              value={form.secret_key}
              onChange={(e) => set('secret_key', e.target.value)}
            />
          )}
        </FormField>
      </div>
      <p className="muted field-hint">{t('cloudForm.keyHint')}</p>
      <RegionsField
        idPrefix={idPrefix}
        value={form.regions}
        onChange={(regions) => set('regions', regions)}
        error={fieldError('regions')}
      />
      <div className="disclosure">
        <button
          type="button"
          className="btn btn--small btn--ghost disclosure__toggle"
          aria-expanded={advanced}
          aria-controls={id('advanced')}
          onClick={() => setAdvanced((v) => !v)}
        >
          <span aria-hidden="true">{advanced ? '▾' : '▸'}</span> {t('cloudForm.advanced')}
        </button>
        {advanced && (
          <div id={id('advanced')} className="disclosure__body">
            <div className="form-grid">
              <FormField id={id('endpoint')} label={t('cloudForm.endpoint')} error={fieldError('endpoint')}>
                {(control) => (
                  <input
                    {...control}
                    className="mono"
                    placeholder={t('cloudForm.endpointPlaceholder')}
                    spellCheck={false}
                    value={form.endpoint}
                    onChange={(e) => set('endpoint', e.target.value)}
                  />
                )}
              </FormField>
              <FormField id={id('endpoint_scheme')} label={t('cloudForm.scheme')} error={fieldError('endpoint_scheme')}>
                {(control) => (
                  <select
                    {...control}
                    value={form.endpoint_scheme}
                    onChange={(e) => set('endpoint_scheme', e.target.value as EndpointScheme)}
                  >
                    <option value="https">https</option>
                    <option value="http">http</option>
                  </select>
                )}
              </FormField>
            </div>
            <p className="muted field-hint">{t('cloudForm.endpointHint')}</p>
          </div>
        )}
      </div>
      {testResult && (
        <div
          className={`alert ${testResult.ok ? 'alert--success' : 'alert--error'}`}
          role={testResult.ok ? 'status' : 'alert'}
          data-testid="connection-test-result"
        >
          {testResult.ok ? testResult.message : t('cloudForm.connectionFailed', { message: testResult.message })}
        </div>
      )}
      <div className="form-actions">
        {onTest && (
          <button type="button" className="btn" onClick={() => void test()} disabled={testing || submitting}>
            {testing ? t('cloudForm.testing') : t('cloudForm.test')}
          </button>
        )}
        <button type="submit" className="btn btn--primary" disabled={submitting || testing}>
          {submitting ? submittingLabel : submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel} disabled={submitting}>
            {t('common.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
