import { useTranslation } from 'react-i18next';
import { useMe } from '../../auth/AuthContext';
import { CaughtMailNote } from '../../components/CaughtMailNote';
import { NoOrganization } from '../../components/ui';
import { canManageOrg } from '../settings/permissions';
import { DigestSubscriptions } from './DigestSubscriptions';
import { ExportsSection } from './ExportsSection';
import { HolidaysSection } from './HolidaysSection';

/** Reports: the e-mailed digests one subscribes to, the holidays they skip, and the CSV/FOCUS downloads. */
export function ReportsPage() {
  const { t } = useTranslation();
  const org = useMe().organization;
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.reports')}</h1>
          {org && <p className="page__subtitle">{t('reports.subtitle')}</p>}
        </div>
      </header>
      {!org ? (
        <NoOrganization />
      ) : (
        <div className="reports">
          <CaughtMailNote />
          <ExportsSection timeZone={org.timezone} />
          <DigestSubscriptions org={org} />
          <HolidaysSection canManage={canManageOrg(org.role)} />
        </div>
      )}
    </div>
  );
}
