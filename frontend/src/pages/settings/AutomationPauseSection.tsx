/**
 * The organization's one switch over "Run it for me" (issue 22): paused, GPU Ledger stops and starts
 * nothing for any recommendation until it is resumed. Owners and admins flip it, after a confirmation.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { automationApi } from '../../api/endpoints';
import { useMe } from '../../auth/AuthContext';
import { ErrorBanner, FormErrorBanner, Spinner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { toApiError, useApiData } from '../../hooks';
import { canManageOrg } from './permissions';

export function AutomationPauseSection() {
  const { t } = useTranslation();
  const org = useMe().organization!;
  const canManage = canManageOrg(org.role);
  const queryClient = useQueryClient();
  const settings = useApiData(queryKeys.automationSettings, (signal) => automationApi.settings(signal));
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const set = async (paused: boolean) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const saved = await automationApi.updateSettings({ paused });
      queryClient.setQueryData(queryKeys.automationSettings, saved ?? { paused });
      setNotice(paused ? t('automationSettings.pausedNotice') : t('automationSettings.resumedNotice'));
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: queryKeys.automationAll });
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const paused = settings.data?.paused ?? false;
  return (
    <section className="card" aria-labelledby="automation-settings-title" data-testid="automation-org-settings">
      <h3 id="automation-settings-title" className="card__title">
        {t('automationSettings.title')}
      </h3>
      <p className="muted">{t('automationSettings.intro')}</p>
      <ErrorBanner error={settings.error} onRetry={settings.reload} />
      {settings.loading && <Spinner label={t('automationSettings.loading')} />}
      {notice && (
        <div className="alert alert--success" role="status">
          {notice}
        </div>
      )}
      {settings.data && (
        <>
          <p data-testid="automation-org-state" data-paused={paused ? 'true' : 'false'}>
            <span className={`badge badge--${paused ? 'warning' : 'success'}`}>
              {paused ? t('automationSettings.paused') : t('automationSettings.running')}
            </span>{' '}
            {paused ? t('automationSettings.pausedBody') : t('automationSettings.runningBody')}
          </p>
          <FormErrorBanner error={error} />
          {!canManage ? (
            <p className="muted small">{t('automationSettings.cannotManage')}</p>
          ) : paused ? (
            <button type="button" className="btn" disabled={busy} data-action="automation-org-resume" onClick={() => void set(false)}>
              {t('automationSettings.resume')}
            </button>
          ) : confirming ? (
            <span className="confirm">
              <span>{t('automationSettings.pauseQuestion')}</span>
              <button
                type="button"
                className="btn btn--small btn--danger"
                disabled={busy}
                data-action="automation-org-pause-confirm"
                onClick={() => void set(true)}
              >
                {t('automationSettings.pauseConfirm')}
              </button>
              <button type="button" className="btn btn--small" onClick={() => setConfirming(false)}>
                {t('common.cancel')}
              </button>
            </span>
          ) : (
            <button type="button" className="btn btn--ghost-danger" disabled={busy} data-action="automation-org-pause" onClick={() => setConfirming(true)}>
              {t('automationSettings.pause')}
            </button>
          )}
        </>
      )}
    </section>
  );
}
