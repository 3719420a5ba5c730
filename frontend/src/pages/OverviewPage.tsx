import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useMe } from '../auth/AuthContext';
import type { Me, Org } from '../api/types';
import { roleLabel } from '../api/roles';
import { EmptyState } from '../components/ui';
import { CURRENCY_LABELS } from '../format';
import { canManageOrg } from './settings/permissions';
import { useCloudAccounts } from './overview/data';
import { OverviewSections } from './overview/OverviewSections';

export { OVERVIEW_RANGE } from './overview/OverviewSections';

export function OverviewPage() {
  const me = useMe();
  const { t } = useTranslation();
  const org = me.organization;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.overview')}</h1>
          <p className="page__subtitle">
            <Trans i18nKey="overview.signedInAs" values={{ email: me.email }} components={{ email: <strong data-testid="user-email" /> }} />
          </p>
        </div>
        {org && (
          <dl className="facts ov-facts" aria-label={t('shell.organization')}>
            <div>
              <dt>{t('shell.organization')}</dt>
              <dd data-testid="org-name">{org.name}</dd>
            </div>
            <div>
              <dt>{t('signup.timezone')}</dt>
              <dd data-testid="org-timezone">{org.timezone}</dd>
            </div>
            <div>
              <dt>{t('signup.currency')}</dt>
              <dd data-testid="org-currency" title={CURRENCY_LABELS[org.currency]}>
                {org.currency}
              </dd>
            </div>
            <div>
              <dt>{t('overview.yourRole')}</dt>
              <dd data-testid="user-role">{roleLabel(org.role)}</dd>
            </div>
          </dl>
        )}
      </header>

      {org ? (
        <OrganizationOverview me={me} org={org} />
      ) : (
        <EmptyState title={t('common.noOrg.title')} icon="◎" testId="no-org">
          <p>
            <Trans i18nKey="overview.askForInvite" values={{ email: me.email }} components={{ strong: <strong /> }} />
          </p>
        </EmptyState>
      )}
    </div>
  );
}

/**
 * The sections, or the welcome while no cloud account is connected. The sections start fetching at once
 * (they do not wait for the accounts), so the charts are not delayed by this check.
 */
function OrganizationOverview({ me, org }: { me: Me; org: Org }) {
  const accounts = useCloudAccounts();
  if (accounts.data && accounts.data.count === 0) return <Welcome me={me} org={org} />;
  return (
    <>
      <OverviewSections scope={{ project: null, timeZone: org.timezone, currency: org.currency }} />
      <p className="muted ov-note">
        <Trans i18nKey="dashboard.projectsLink" components={{ projects: <Link to="/projects" /> }} />
      </p>
    </>
  );
}

function Welcome({ me, org }: { me: Me; org: Org }) {
  const { t } = useTranslation();
  return (
    <EmptyState title={t('overview.welcome', { name: me.name || me.email })} icon="▦" testId="overview-empty">
      <p>
        <Trans i18nKey="overview.welcomeBody" values={{ org: org.name, currency: org.currency }} components={{ strong: <strong /> }} />
      </p>
      {canManageOrg(org.role) && (
        <p>
          <Link to="/connect" className="btn btn--primary" data-testid="overview-connect">
            {t('connect.title')}
          </Link>
        </p>
      )}
      <ol className="steps">
        <li>{t('overview.step1')}</li>
        <li>
          <Trans i18nKey="overview.step2" components={{ settings: <Link to="/settings/cloud-accounts" /> }} />
        </li>
        <li>{t('overview.step3')}</li>
      </ol>
      <p className="muted">
        <Trans i18nKey="overview.timezoneNote" values={{ timeZone: org.timezone }} components={{ settings: <Link to="/settings/members" /> }} />
      </p>
    </EmptyState>
  );
}
