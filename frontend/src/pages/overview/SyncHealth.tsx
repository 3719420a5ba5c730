import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDateTime, formatRelative } from '../../format';
import { useTick } from '../../hooks';
import { useCloudAccounts } from './data';
import { Section, SectionEmpty } from './Section';
import { syncHealth } from './syncHealth';
import type { OverviewScope } from './types';

/** When data last arrived from Tencent Cloud and which accounts fail, in plain words. */
export function SyncHealth({ scope }: { scope: OverviewScope }) {
  const { t } = useTranslation();
  useTick();
  const accounts = useCloudAccounts();
  const health = accounts.data ? syncHealth(accounts.data.results) : null;
  return (
    <Section
      title={t('dashboard.sync.title')}
      loading={accounts.loading}
      error={accounts.error}
      onRetry={accounts.reload}
      skeletonHeight={120}
      testId="sync-health"
    >
      {health && health.accounts === 0 ? (
        <SectionEmpty title={t('dashboard.sync.noAccountsTitle')} testId="sync-no-accounts">
          <Trans i18nKey="dashboard.sync.noAccountsBody" components={{ connect: <Link to="/connect" /> }} />
        </SectionEmpty>
      ) : health ? (
        <div className="ov-sync">
          <p data-testid="sync-last">
            {health.lastSuccessAt
              ? t('dashboard.sync.last', {
                  when: formatRelative(health.lastSuccessAt) ?? '',
                  at: formatDateTime(health.lastSuccessAt, scope.timeZone),
                })
              : t('dashboard.sync.never')}
          </p>
          {health.failing.length === 0 ? (
            <p className="ov-ok" data-testid="sync-ok">
              {health.pending > 0
                ? t('dashboard.sync.pending', { count: health.pending })
                : t('dashboard.sync.allOk', { count: health.accounts })}
            </p>
          ) : (
            <ul className="ov-sync__failing" data-testid="sync-failing">
              {health.failing.map((a) => (
                <li key={a.id} className="text-danger">
                  <Trans
                    i18nKey={a.error ? 'dashboard.sync.failing' : 'dashboard.sync.failingNoMessage'}
                    values={{ name: a.name, error: a.error }}
                    components={{ strong: <strong />, settings: <Link to="/settings/cloud-accounts" /> }}
                  />
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </Section>
  );
}
