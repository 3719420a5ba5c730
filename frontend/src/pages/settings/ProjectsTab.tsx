import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { useMe } from '../../auth/AuthContext';
import { projectsApi, projectTagKeysApi } from '../../api/endpoints';
import type { Project, ProjectChanges, ProjectTagKey } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FormActions } from '../../components/FormActions';
import { FormField } from '../../components/FormField';
import { FormErrorBanner } from '../../components/ui';
import { PaginatedTable } from '../../components/PaginatedTable';
import { queryKeys } from '../../data/keys';
import { usePaginatedList, useRowAction } from '../../hooks';
import { canManageOrg } from './permissions';
import { useEditForm } from './useEditForm';

/**
 * What a tag-rule change or a project edit can move: every instance's and bill line's project is derived
 * again on the server, so the money per project (costs, usage, the analysis) and the instance list change too.
 */
const AFFECTED_KEYS = [
  queryKeys.projects,
  queryKeys.projectTagKeys,
  queryKeys.instances,
  queryKeys.usageProjects,
  queryKeys.usageInstances,
  queryKeys.costs,
  queryKeys.analysisSummary,
  queryKeys.budgets,
];

/** "nlp, NLP team" → ["nlp", "NLP team"]: the tag values as typed, one per comma, blanks dropped. */
export function parseTagValues(text: string): string[] {
  return text
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

function sameValues(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function ProjectEditRow({
  project,
  busy,
  error,
  onSave,
  onCancel,
}: {
  project: Project;
  busy: boolean;
  error: ReturnType<typeof useEditForm>['formError'];
  onSave: (changes: ProjectChanges) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState(project.name);
  const [values, setValues] = useState(project.tag_values.join(', '));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Only what changed: a rename alone must not re-send (and so re-claim) the tag values.
    const changes: ProjectChanges = {};
    if (name.trim() !== project.name) changes.name = name.trim();
    const parsed = parseTagValues(values);
    if (!sameValues(parsed, project.tag_values)) changes.tag_values = parsed;
    onSave(changes);
  };
  return (
    <tr>
      <td colSpan={3}>
        <form className="form" aria-label={t('projectSettings.editTitle', { name: project.name })} onSubmit={submit}>
          <FormErrorBanner error={error} inlineFields={['name', 'tag_values']} />
          <FormField id={`project-${project.id}-name`} label={t('projectSettings.name')} error={error?.field('name')}>
            {(control) => (
              <input {...control} value={name} required maxLength={200} onChange={(e) => setName(e.target.value)} />
            )}
          </FormField>
          <FormField
            id={`project-${project.id}-values`}
            label={t('projectSettings.tagValues')}
            hint={t('projectSettings.tagValuesHint')}
            error={error?.field('tag_values')}
          >
            {(control) => <input {...control} value={values} onChange={(e) => setValues(e.target.value)} />}
          </FormField>
          <FormActions submitLabel={t('projectSettings.save')} busy={busy} onCancel={onCancel} />
        </form>
      </td>
    </tr>
  );
}

/** Settings → Projects and tag rules: which tag keys name projects (in order), and each project's name and values. */
export function ProjectsTab() {
  const org = useMe().organization!;
  const { t } = useTranslation();
  const canManage = canManageOrg(org.role);
  const queryClient = useQueryClient();
  const afterChange = () => {
    for (const key of AFFECTED_KEYS) void queryClient.invalidateQueries({ queryKey: key });
  };

  const keys = usePaginatedList<ProjectTagKey>(queryKeys.projectTagKeys, (q, signal) => projectTagKeysApi.list(q, signal), 100);
  const keyAction = useRowAction(afterChange);
  const keyForm = useEditForm(keyAction, afterChange);
  const [newKey, setNewKey] = useState('');

  const projects = usePaginatedList<Project>(queryKeys.projects, (q, signal) => projectsApi.list(q, signal), 50);
  const projectAction = useRowAction(afterChange);
  const projectForm = useEditForm(projectAction, afterChange);

  const addKey = (event: FormEvent) => {
    event.preventDefault();
    const key = newKey.trim();
    // Appended: the new key names a project only for instances that carry none of the keys above it.
    const position = keys.items.reduce((last, k) => Math.max(last, k.position + 1), 0);
    void keyForm.save(async () => {
      await projectTagKeysApi.create({ key, position });
      setNewKey('');
      return t('projectSettings.keyAdded', { key });
    });
  };

  const saveProject = (project: Project, changes: ProjectChanges) =>
    void projectForm.save(async () => {
      const saved = Object.keys(changes).length === 0 ? project : await projectsApi.update(project.id, changes);
      return t('projectSettings.saved', { name: saved.name });
    });

  const renderKey = (k: ProjectTagKey) => (
    <tr key={k.id}>
      <td>
        <code>{k.key}</code>
      </td>
      <td className="num">{keys.items.indexOf(k) + 1 + (keys.page - 1) * keys.pageSize}</td>
      {canManage && (
        <td className="table__actions">
          <ConfirmButton
            label={t('projectSettings.removeKey')}
            ariaLabel={t('projectSettings.removeKeyName', { key: k.key })}
            question={t('projectSettings.removeKeyQuestion')}
            confirmLabel={t('projectSettings.removeKeyConfirm')}
            confirming={keyForm.confirmId === k.id}
            onConfirmingChange={(c) => keyForm.setConfirmId(c ? k.id : null)}
            onConfirm={() =>
              void keyAction.run(k.id, () => projectTagKeysApi.remove(k.id), t('projectSettings.keyRemoved', { key: k.key }))
            }
            busy={keyAction.busyId === k.id}
          />
        </td>
      )}
    </tr>
  );

  const renderProject = (p: Project) => {
    const mode = projectForm.mode;
    if (canManage && mode.kind === 'edit' && mode.id === p.id) {
      return (
        <ProjectEditRow
          key={p.id}
          project={p}
          busy={projectForm.busy}
          error={projectForm.formError}
          onSave={(changes) => saveProject(p, changes)}
          onCancel={() => projectForm.open({ kind: 'closed' })}
        />
      );
    }
    return (
      <tr key={p.id}>
        <td>
          <div className="cell-title">{p.name}</div>
          <div className="cell-sub">{p.slug}</div>
        </td>
        <td>
          {p.tag_values.length === 0 ? (
            <span className="muted">{t('projectSettings.noValues')}</span>
          ) : (
            <ul className="chips">
              {p.tag_values.map((value) => (
                <li key={value} className="chip">
                  {value}
                </li>
              ))}
            </ul>
          )}
        </td>
        {canManage && (
          <td className="table__actions">
            <button
              type="button"
              className="btn btn--small btn--ghost"
              aria-label={t('projectSettings.editName', { name: p.name })}
              onClick={() => projectForm.open({ kind: 'edit', id: p.id })}
            >
              {t('projectSettings.edit')}
            </button>
          </td>
        )}
      </tr>
    );
  };

  return (
    <section aria-label={t('projectSettings.tab')}>
      <div className="section-header">
        <div>
          <h2>{t('projectSettings.keysTitle')}</h2>
          <p className="muted">{t('projectSettings.keysIntro')}</p>
        </div>
        {canManage && keyForm.mode.kind === 'closed' && (
          <button type="button" className="btn btn--primary" onClick={() => keyForm.open({ kind: 'create' })}>
            {t('projectSettings.addKey')}
          </button>
        )}
      </div>
      {!canManage && <p className="muted">{t('projectSettings.cannotManage')}</p>}
      {canManage && keyForm.mode.kind === 'create' && (
        <form className="form" aria-label={t('projectSettings.addKey')} onSubmit={addKey}>
          <FormErrorBanner error={keyForm.formError} inlineFields={['key']} />
          <FormField
            id="project-tag-key"
            label={t('projectSettings.key')}
            hint={t('projectSettings.keyHint')}
            error={keyForm.formError?.field('key')}
          >
            {(control) => (
              <input {...control} value={newKey} required maxLength={127} onChange={(e) => setNewKey(e.target.value)} />
            )}
          </FormField>
          <FormActions
            submitLabel={t('projectSettings.addKeySubmit')}
            busy={keyForm.busy}
            onCancel={() => keyForm.open({ kind: 'closed' })}
          />
        </form>
      )}
      <PaginatedTable
        list={keys}
        columns={[t('projectSettings.col.key'), t('projectSettings.col.order')]}
        withActions={canManage}
        loadingLabel={t('projectSettings.loadingKeys')}
        emptyText={canManage ? t('projectSettings.emptyKeysManager') : t('projectSettings.emptyKeys')}
        renderRow={renderKey}
        notice={keyAction.notice}
        actionError={keyAction.error}
      />

      <div className="section-header">
        <div>
          <h2>{t('projectSettings.projectsTitle')}</h2>
          <p className="muted">{t('projectSettings.projectsIntro')}</p>
        </div>
      </div>
      <PaginatedTable
        list={projects}
        columns={[t('projectSettings.col.project'), t('projectSettings.col.values')]}
        withActions={canManage}
        loadingLabel={t('projectSettings.loadingProjects')}
        emptyText={t('projectSettings.emptyProjects')}
        renderRow={renderProject}
        notice={projectAction.notice}
        actionError={projectAction.error}
      />
    </section>
  );
}
