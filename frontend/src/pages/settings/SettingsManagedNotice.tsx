import { useTranslation } from 'react-i18next';
import { membersApi } from '../../api/endpoints';
import type { Member } from '../../api/types';
import { roleLabel } from '../../api/roles';
import { EmptyState } from '../../components/ui';
import { queryKeys } from '../../data/keys';
import { useApiData } from '../../hooks';
import { canManageOrg } from './permissions';

/**
 * What /settings/* shows a lead, finance or viewer: settings are owner/admin business, and who those are
 * when the member list is readable (it names no one when the list fails or is forbidden, rather than erring).
 */
export function SettingsManagedNotice() {
  const { t } = useTranslation();
  const members = useApiData([...queryKeys.members, 'managers'], (signal) =>
    membersApi.list({ page: 1, pageSize: 100 }, signal),
  );
  const managers: Member[] = (members.data?.results ?? []).filter((m) => canManageOrg(m.role));
  return (
    <EmptyState title={t('projectSettings.managed.title')} icon="◎" testId="settings-managed">
      <p>{t('projectSettings.managed.body')}</p>
      {managers.length > 0 && (
        <>
          <p>{t('projectSettings.managed.askThem')}</p>
          <ul className="chips" aria-label={t('projectSettings.managed.listLabel')}>
            {managers.map((m) => (
              <li key={m.id} className="chip">
                {m.user.name
                  ? t('projectSettings.managed.person', { name: m.user.name, email: m.user.email, role: roleLabel(m.role) })
                  : t('projectSettings.managed.personNoName', { email: m.user.email, role: roleLabel(m.role) })}
              </li>
            ))}
          </ul>
        </>
      )}
    </EmptyState>
  );
}
