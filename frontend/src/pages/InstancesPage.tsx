/**
 * The Instances page: the usage table (cost, waste, GPU utilization) of a date range, sortable and filterable,
 * everything in the URL. The table lives in ./instances/; this module keeps the small instance helpers the
 * instance page shares.
 */
import { useTranslation } from 'react-i18next';
import { useMe } from '../auth/AuthContext';
import { NoOrganization } from '../components/ui';
import { InstancesUsage } from './instances/InstancesUsage';

export { chargeTypeLabel, formatGpus, isTerminated, stateLabel, stateTone, tagEntries } from './instances/labels';

export function InstancesPage() {
  const me = useMe();
  const { t } = useTranslation();
  if (!me.organization) {
    return (
      <div className="page">
        <header className="page__header">
          <h1>{t('nav.instances')}</h1>
        </header>
        <NoOrganization />
      </div>
    );
  }
  return <InstancesUsage timeZone={me.organization.timezone} />;
}
