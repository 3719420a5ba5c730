/**
 * A cloud account's write credential and its automation switch (Settings → Cloud accounts, issue 22).
 *
 * GPU Ledger reads with the account's credential; to stop and start instances ("Run it for me") it needs a
 * second one allowed only cvm:StopInstances, cvm:StartInstances and cvm:DescribeInstances. The server tries a
 * new one on the cloud before it keeps it and answers 400 with the field's message when it fails.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { automationApi } from '../../api/endpoints';
import type { CloudAccount } from '../../api/types';
import { FormField } from '../../components/FormField';
import { FormErrorBanner } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { toApiError } from '../../hooks';

/** The only actions the write credential's CAM policy needs; it never terminates anything. */
export const CAM_ACTIONS = ['cvm:StopInstances', 'cvm:StartInstances', 'cvm:DescribeInstances'] as const;

const CREDENTIAL_FIELDS = ['secret_id', 'secret_key', 'automation_tag'];

export function WriteCredentialSection({
  account,
  canManage,
  onChanged,
}: {
  account: CloudAccount;
  canManage: boolean;
  /** The account as the API answered (or null: read the list again). */
  onChanged: (updated: CloudAccount | null, notice: string) => void;
}) {
  const { t } = useTranslation();
  const hasCredential = account.has_write_credential;
  const enabled = account.automation_enabled;
  const [open, setOpen] = useState(false);
  const [secretId, setSecretId] = useState('');
  const [secretKey, setSecretKey] = useState('');
  const [tag, setTag] = useState(account.automation_tag);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  const queryClient = useQueryClient();

  const run = async (action: () => Promise<CloudAccount | void | undefined>, notice: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      const answer = await action();
      onChanged(answer && typeof answer === 'object' && 'id' in answer ? answer : null, notice);
      // Whether a recommendation can be run for you depends on the account's credential and switch.
      void queryClient.invalidateQueries({ queryKey: queryKeys.automationAll });
      return true;
    } catch (err) {
      setError(toApiError(err));
      return false;
    } finally {
      setBusy(false);
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await run(
      () =>
        automationApi.setWriteCredential(account.id, {
          secret_id: secretId.trim(),
          secret_key: secretKey,
          ...(tag.trim() ? { automation_tag: tag.trim() } : {}),
        }),
      t('writeCredential.saved', { name: account.name }),
    );
    if (ok) {
      setOpen(false);
      setSecretId('');
      setSecretKey('');
    }
  };

  const idPrefix = `write-credential-${account.id}`;
  return (
    <div className="write-credential" data-testid={`write-credential-${account.id}`}>
      <h4 className="subsection-title">{t('writeCredential.title')}</h4>
      <dl className="facts facts--small">
        <div>
          <dt>{t('writeCredential.credential')}</dt>
          <dd data-testid="write-credential-status" data-has={hasCredential ? 'true' : 'false'}>
            {hasCredential ? (
              <>
                {t('writeCredential.has')} {account.write_secret_id && <code>{account.write_secret_id}</code>}
              </>
            ) : (
              t('writeCredential.none')
            )}
          </dd>
        </div>
        <div>
          <dt>{t('writeCredential.automation')}</dt>
          <dd data-testid="automation-enabled" data-enabled={enabled ? 'true' : 'false'}>
            {enabled ? t('writeCredential.on') : t('writeCredential.off')}
          </dd>
        </div>
        {hasCredential && (
          <div>
            <dt>{t('writeCredential.tag')}</dt>
            <dd>{account.automation_tag ? <code>{account.automation_tag}</code> : t('writeCredential.noTag')}</dd>
          </div>
        )}
      </dl>
      <p className="muted small">{t('writeCredential.policy')}</p>
      <ul className="chips" aria-label={t('writeCredential.policyActions')}>
        {CAM_ACTIONS.map((action) => (
          <li key={action} className="chip">
            <code>{action}</code>
          </li>
        ))}
      </ul>

      {!open && error && (
        <div className="alert alert--error" role="alert" data-testid="automation-error">
          {/* The field's own message, not the envelope's "Invalid input: <field>: …". */}
          {error.field('automation_enabled') ?? error.field('non_field_errors') ?? error.message}
        </div>
      )}
      {canManage && (
        <div className="form-actions">
          <label className="check">
            <input
              type="checkbox"
              checked={enabled}
              disabled={busy}
              data-action="automation-toggle"
              onChange={(e) =>
                void run(
                  () => automationApi.setAccountAutomation(account.id, e.target.checked),
                  e.target.checked
                    ? t('writeCredential.enabledNotice', { name: account.name })
                    : t('writeCredential.disabledNotice', { name: account.name }),
                )
              }
            />
            <span>{t('writeCredential.toggle')}</span>
          </label>
          {!open && (
            <button
              type="button"
              className="btn btn--small"
              data-action="write-credential-open"
              onClick={() => {
                setError(null);
                setOpen(true);
              }}
            >
              {hasCredential ? t('writeCredential.replace') : t('writeCredential.add')}
            </button>
          )}
          {hasCredential &&
            (confirmingRemove ? (
              <span className="confirm">
                <span>{t('writeCredential.removeQuestion')}</span>
                <button
                  type="button"
                  className="btn btn--small btn--danger"
                  disabled={busy}
                  data-action="write-credential-remove-confirm"
                  onClick={() =>
                    void run(() => automationApi.removeWriteCredential(account.id), t('writeCredential.removed', { name: account.name })).then(
                      () => setConfirmingRemove(false),
                    )
                  }
                >
                  {t('writeCredential.removeConfirm')}
                </button>
                <button type="button" className="btn btn--small" onClick={() => setConfirmingRemove(false)}>
                  {t('common.cancel')}
                </button>
              </span>
            ) : (
              <button
                type="button"
                className="btn btn--small btn--ghost-danger"
                disabled={busy}
                data-action="write-credential-remove"
                onClick={() => setConfirmingRemove(true)}
              >
                {t('writeCredential.remove')}
              </button>
            ))}
        </div>
      )}

      {canManage && open && (
        <form className="inline-form" onSubmit={(e) => void save(e)} noValidate aria-label={t('writeCredential.form', { name: account.name })}>
          {error && !CREDENTIAL_FIELDS.some((field) => error.field(field)) && <FormErrorBanner error={error} />}
          <div className="form-grid">
            <FormField id={`${idPrefix}-secret-id`} label="SecretId" error={error?.field('secret_id')}>
              {(control) => (
                <input
                  {...control}
                  className="mono"
                  autoComplete="off"
                  spellCheck={false}
                  value={secretId}
                  onChange={(e) => setSecretId(e.target.value)}
                />
              )}
            </FormField>
            <FormField id={`${idPrefix}-secret-key`} label="SecretKey" error={error?.field('secret_key')}>
              {(control) => (
                <input
                  {...control}
                  type="password"
                  className="mono"
                  autoComplete="new-password"
                  spellCheck={false}
                  value={secretKey}
                  onChange={(e) => setSecretKey(e.target.value)}
                />
              )}
            </FormField>
            <FormField
              id={`${idPrefix}-tag`}
              label={t('writeCredential.tagOptional')}
              hint={t('writeCredential.tagHint')}
              error={error?.field('automation_tag')}
            >
              {(control) => <input {...control} className="mono" spellCheck={false} value={tag} onChange={(e) => setTag(e.target.value)} />}
            </FormField>
          </div>
          <p className="muted field-hint">{t('writeCredential.testedFirst')}</p>
          <div className="form-actions">
            <button type="submit" className="btn btn--primary" disabled={busy} data-action="write-credential-save">
              {busy ? t('writeCredential.testing') : t('writeCredential.save')}
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setOpen(false)}>
              {t('common.cancel')}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
