import { Link } from 'react-router';
import { useMe } from '../auth/AuthContext';
import { projectsApi } from '../api/endpoints';
import type { Project } from '../api/types';
import { usePaginatedList } from '../hooks';
import { EmptyState, ErrorBanner, NoOrganization, Pagination, Spinner } from '../components/ui';
import { queryKeys } from '../data/keys';

function ProjectsList() {
  const list = usePaginatedList<Project>(queryKeys.projects, (q, signal) => projectsApi.list(q, signal), 50);

  if (!list.loading && !list.error && list.count === 0) {
    return (
      <EmptyState title="No projects yet" icon="▤" testId="projects-empty">
        <p>
          Your Tencent Cloud projects and tag-based teams will be listed here, each with the tag values that count as
          that project. Instances whose tags match no project are counted as Unallocated.
        </p>
        <p className="muted">
          This needs a connected Tencent Cloud account. Nothing is shown until real data has been synced from your
          cloud: connect an account in <Link to="/settings/cloud-accounts">Settings → Cloud accounts</Link>.
        </p>
      </EmptyState>
    );
  }

  return (
    <>
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && list.items.length === 0 ? (
        <Spinner label="Loading projects…" />
      ) : (
        !list.error && (
          <table className="table" aria-label="Projects">
            <thead>
              <tr>
                <th>Project</th>
                <th>Tag values</th>
                <th className="table__actions">Instances</th>
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
                      <span className="muted">No tag values</span>
                    ) : (
                      <ul className="chips" aria-label={`Tag values of ${project.name}`}>
                        {project.tag_values.map((value) => (
                          <li key={value} className="chip">
                            {value}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td className="table__actions">
                    <Link to={`/instances?project=${project.id}`} aria-label={`Instances of ${project.name}`}>
                      View instances
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
  const me = useMe();
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <h1>Projects</h1>
          <p className="page__subtitle">Cost-allocation buckets, named by the values of your project tag.</p>
        </div>
      </header>
      {me.organization ? <ProjectsList /> : <NoOrganization />}
    </div>
  );
}
