import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { alertsApi } from '../../api/endpoints';
import type { ApiError } from '../../api/client';
import type { AlertSettings, AlertSettingsChanges } from '../../api/types';
import { FormField } from '../../components/FormField';
import { ErrorBanner, FormErrorBanner, Spinner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { toApiError, useApiData } from '../../hooks';

function WebhookForm({ settings, canManage, onSaved }: { settings: AlertSettings; canManage: boolean; onSaved: (s: AlertSettings) => void }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState(settings.webhook_url);
  const [secret, setSecret] = useState('');
  const [enabled, setEnabled] = useState(settings.webhook_enabled);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    // The secret is write-only: sent only when typed, so saving the URL keeps the stored one.
    const changes: AlertSettingsChanges = { webhook_url: url.trim(), webhook_enabled: enabled };
    if (secret) changes.webhook_secret = secret;
    try {
      const saved = await alertsApi.updateSettings(changes);
      setSecret('');
      setNotice(t('alertsSettings.webhook.saved'));
      onSaved(saved);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={(e) => void submit(e)} noValidate aria-label={t('alertsSettings.webhook.form')}>
      {notice && (
        <div className="alert alert--success" role="status">
          {notice}
        </div>
      )}
      <FormField id="webhook-url" label={t('alertsSettings.webhook.url')} error={error?.field('webhook_url')}>
        {(c) => (
          <input {...c} type="url" value={url} disabled={!canManage} placeholder={t('alertsSettings.webhook.urlPlaceholder')} onChange={(e) => setUrl(e.target.value)} />
        )}
      </FormField>
      <FormField
        id="webhook-secret"
        label={t('alertsSettings.webhook.secret')}
        hint={settings.webhook_secret_set ? t('alertsSettings.webhook.secretSet') : t('alertsSettings.webhook.secretNotSet')}
        error={error?.field('webhook_secret')}
      >
        {(c) => (
          <input
            {...c}
            type="password"
            autoComplete="new-password"
            value={secret}
            disabled={!canManage}
            onChange={(e) => setSecret(e.target.value)}
          />
        )}
      </FormField>
      <label className="check">
        <input type="checkbox" checked={enabled} disabled={!canManage} onChange={(e) => setEnabled(e.target.checked)} />
        {t('alertsSettings.webhook.enabled')}
      </label>
      <FormErrorBanner error={error} inlineFields={['webhook_url', 'webhook_secret']} />
      {canManage && (
        <div className="form-actions">
          <button type="submit" className="btn btn--primary" disabled={busy}>
            {busy ? t('common.saving') : t('alertsSettings.webhook.save')}
          </button>
        </div>
      )}
    </form>
  );
}

/** The webhook beside e-mail: a JSON POST signed with HMAC-SHA256 under the write-only secret. */
export function WebhookSection({ canManage }: { canManage: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const settings = useApiData(queryKeys.alertSettings, (signal) => alertsApi.settings(signal));
  return (
    <section aria-labelledby="webhook-title">
      <h3 id="webhook-title">{t('alertsSettings.webhook.title')}</h3>
      <p className="muted">{t('alertsSettings.webhook.intro')}</p>
      {settings.loading && <Spinner label={t('alertsSettings.webhook.loading')} />}
      <ErrorBanner error={settings.error} onRetry={settings.reload} />
      {settings.data && (
        <WebhookForm
          settings={settings.data}
          canManage={canManage}
          onSaved={(saved) => queryClient.setQueryData(queryKeys.alertSettings, saved)}
        />
      )}
    </section>
  );
}
