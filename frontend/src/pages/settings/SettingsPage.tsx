import { useTranslation } from 'react-i18next';
import { NavLink, Navigate, Route, Routes } from 'react-router';
import { useMe } from '../../auth/AuthContext';
import { EmptyState } from '../../components/ui';
import { MembersTab } from './MembersTab';
import { InvitationsTab } from './InvitationsTab';
import { ApiKeysTab } from './ApiKeysTab';
import { CloudAccountsTab } from './CloudAccountsTab';
import { BudgetsTab } from './BudgetsTab';
import { AlertsTab } from './AlertsTab';
import { ProjectsTab } from './ProjectsTab';
import { RecommendationsTab } from './RecommendationsTab';
import { AuditLogTab } from './AuditLogTab';
import { SettingsManagedNotice } from './SettingsManagedNotice';
import { canManageOrg } from './permissions';

const TABS = [
  { to: '/settings/members', label: 'settings.tabs.members' },
  { to: '/settings/invitations', label: 'settings.tabs.invitations' },
  { to: '/settings/api-keys', label: 'settings.tabs.apiKeys' },
  { to: '/settings/cloud-accounts', label: 'settings.tabs.cloudAccounts' },
  { to: '/settings/projects', label: 'projectSettings.tab' },
  { to: '/settings/budgets', label: 'budgets.tab' },
  { to: '/settings/alerts', label: 'alertsSettings.tab' },
  { to: '/settings/recommendations', label: 'recommendationSettings.tab' },
  { to: '/settings/audit-log', label: 'auditLog.tab' },
] as const;

export function SettingsPage() {
  const me = useMe();
  const org = me.organization;

  const { t } = useTranslation();
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.settings')}</h1>
          {org && <p className="page__subtitle">{org.name}</p>}
        </div>
      </header>
      {!org ? (
        <EmptyState title={t('settings.noOrg.title')} icon="◎">
          <p>{t('settings.noOrg.body')}</p>
        </EmptyState>
      ) : !canManageOrg(org.role) ? (
        // Only owners and admins write settings (the API's MANAGER_ROLES); others are told whom to ask.
        // The recommendation thresholds stay readable, as they explain why a recommendation was made.
        <Routes>
          <Route
            path="recommendations"
            element={
              <>
                <SettingsManagedNotice />
                <RecommendationsTab />
              </>
            }
          />
          <Route path="*" element={<SettingsManagedNotice />} />
        </Routes>
      ) : (
        <>
          <nav className="tabs" aria-label={t('settings.sections')}>
            {TABS.map((tab) => (
              <NavLink key={tab.to} to={tab.to} className={({ isActive }) => `tab${isActive ? ' tab--active' : ''}`}>
                {t(tab.label)}
              </NavLink>
            ))}
          </nav>
          <div className="tab-panel">
            <Routes>
              <Route index element={<Navigate to="/settings/members" replace />} />
              <Route path="members" element={<MembersTab />} />
              <Route path="invitations" element={<InvitationsTab />} />
              <Route path="api-keys" element={<ApiKeysTab />} />
              <Route path="cloud-accounts" element={<CloudAccountsTab />} />
              <Route path="projects" element={<ProjectsTab />} />
              <Route path="budgets" element={<BudgetsTab />} />
              <Route path="alerts" element={<AlertsTab />} />
              <Route path="recommendations" element={<RecommendationsTab />} />
              <Route path="audit-log" element={<AuditLogTab />} />
              <Route path="*" element={<Navigate to="/settings/members" replace />} />
            </Routes>
          </div>
        </>
      )}
    </div>
  );
}
