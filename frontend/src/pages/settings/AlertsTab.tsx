import { useTranslation } from 'react-i18next';
import { useMe } from '../../auth/AuthContext';
import { projectsApi } from '../../api/endpoints';
import { queryKeys } from '../../data/keys';
import { useApiData } from '../../hooks';
import { ErrorBanner } from '../../components/ui';
import { i18n } from '../../i18n';
import { AlertHistorySection } from './AlertHistorySection';
import { AlertRecipientsSection } from './AlertRecipientsSection';
import { AlertRulesSection } from './AlertRulesSection';
import { WebhookSection } from './WebhookSection';
import { canManageOrg } from './permissions';

/** Threshold rules (with the matching Tencent alarm policy), who is told, the webhook, and recent alerts. */
export function AlertsTab() {
  const org = useMe().organization!;
  const { t } = useTranslation();
  const canManage = canManageOrg(org.role);
  const projects = useApiData([...queryKeys.projects, 'all'], (signal) => projectsApi.list({ page: 1, pageSize: 500 }, signal));
  const names = new Map((projects.data?.results ?? []).map((p) => [p.id, p.name]));
  const projectName = (id: number | null) =>
    id === null ? i18n.t('alertsSettings.allProjects') : names.get(id) ?? i18n.t('alertsSettings.projectId', { id });
  const list = projects.data?.results ?? [];
  return (
    <section aria-label={t('alertsSettings.tab')}>
      <div className="section-header">
        <div>
          <h2>{t('alertsSettings.tab')}</h2>
          <p className="muted">{t('alertsSettings.intro')}</p>
        </div>
      </div>
      {!canManage && <p className="muted">{t('alertsSettings.cannotManage')}</p>}
      <ErrorBanner error={projects.error} onRetry={projects.reload} />
      <AlertRulesSection canManage={canManage} projects={list} projectName={projectName} />
      <AlertRecipientsSection canManage={canManage} projects={list} projectName={projectName} />
      <WebhookSection canManage={canManage} />
      <AlertHistorySection timeZone={org.timezone} />
    </section>
  );
}
