import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useMe } from '../auth/AuthContext';
import { projectsApi } from '../api/endpoints';
import type { Project } from '../api/types';
import { usePaginatedList } from '../hooks';
import { EmptyState, ErrorBanner, NoOrganization, Pagination, Spinner } from '../components/ui';
import { queryKeys } from '../data/keys';

function ProjectsList() {
  const { t } = useTranslation();
  const list = usePaginatedList<Project>(queryKeys.projects, (q, signal) => projectsApi.list(q, signal), 50);

  if (!list.loading && !list.error && list.count === 0) {
    return (
      <EmptyState title={t('projects.empty.title')} icon="▤" testId="projects-empty">
        <p>{t('projects.empty.body')}</p>
        <p className="muted">
          <Trans i18nKey="projects.empty.connect" components={{ settings: <Link to="/settings/cloud-accounts" /> }} />
        </p>
      </EmptyState>
    );
  }

  return (
    <>
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && list.items.length === 0 ? (
        <Spinner label={t('projects.loading')} />
      ) : (
        !list.error && (
          <table className="table" aria-label={t('nav.projects')}>
            <thead>
              <tr>
                <th>{t('projects.col.project')}</th>
                <th>{t('projects.col.tagValues')}</th>
                <th className="table__actions">{t('nav.instances')}</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((project) => (
                <tr key={project.id} data-testid={`project-${project.slug}`}>
                  <td>
                    <div className="cell-title">{project.name}</div>
                    <code className="cell-sub">{project.slug}</code>
                  </td>
                  <td>
                    {project.tag_values.length === 0 ? (
                      <span className="muted">{t('projects.noTagValues')}</span>
                    ) : (
                      <ul className="chips" aria-label={t('projects.tagValuesOf', { name: project.name })}>
                        {project.tag_values.map((value) => (
                          <li key={value} className="chip">
                            {value}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td className="table__actions">
                    <Link to={`/instances?project=${project.id}`} aria-label={t('projects.instancesOf', { name: project.name })}>
                      {t('projects.viewInstances')}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      )}
      <Pagination page={list.page} pageSize={list.pageSize} count={list.count} onPage={list.setPage} disabled={list.loading} />
    </>
  );
}

export function ProjectsPage() {
  const { t } = useTranslation();
  const me = useMe();
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>{t('nav.projects')}</h1>
          <p className="page__subtitle">{t('projects.subtitle')}</p>
        </div>
      </header>
      {me.organization ? <ProjectsList /> : <NoOrganization />}
    </div>
  );
}
