import { NavLink, Navigate, Route, Routes } from 'react-router';
import { useMe } from '../../auth/AuthContext';
import { EmptyState } from '../../components/ui';
import { MembersTab } from './MembersTab';
import { InvitationsTab } from './InvitationsTab';
import { ApiKeysTab } from './ApiKeysTab';
import { CloudAccountsTab } from './CloudAccountsTab';

const TABS = [
  { to: '/settings/members', label: 'Members' },
  { to: '/settings/invitations', label: 'Invitations' },
  { to: '/settings/api-keys', label: 'API keys' },
  { to: '/settings/cloud-accounts', label: 'Cloud accounts' },
];

export function SettingsPage() {
  const me = useMe();
  const org = me.organization;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>Settings</h1>
          {org && <p className="page__subtitle">{org.name}</p>}
        </div>
      </header>
      {!org ? (
        <EmptyState title="No organization selected" icon="◎">
          <p>Settings belong to an organization. Join one through an invitation first.</p>
        </EmptyState>
      ) : (
        <>
          <nav className="tabs" aria-label="Settings sections">
            {TABS.map((tab) => (
              <NavLink key={tab.to} to={tab.to} className={({ isActive }) => `tab${isActive ? ' tab--active' : ''}`}>
                {tab.label}
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
              <Route path="*" element={<Navigate to="/settings/members" replace />} />
            </Routes>
          </div>
        </>
      )}
    </div>
  );
}
