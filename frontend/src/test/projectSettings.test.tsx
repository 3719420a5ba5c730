import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { ACME, CSRF, emptyPage, makeMe, mockApi } from './mockApi';
import type { Org, Project, ProjectTagKey } from '../api/types';
import { navFor } from '../components/AppShell';
import { parseTagValues } from '../pages/settings/ProjectsTab';

const KEYS: ProjectTagKey[] = [
  { id: 1, key: 'project', position: 0 },
  { id: 2, key: 'team', position: 1 },
];
const PROJECTS: Project[] = [
  { id: 3, name: 'NLP', slug: 'nlp', tag_values: ['nlp', 'NLP team'] },
  { id: 4, name: 'Vision', slug: 'vision', tag_values: ['vision'] },
];
const page = <T,>(results: T[]) => ({ body: { ...emptyPage, count: results.length, results } });

function meAs(role: Org['role']) {
  const org = { ...ACME, role };
  return { body: makeMe({ organization: org, organizations: [org] }) };
}

const routes = (role: Org['role'] = 'owner') => ({
  'GET /api/v1/me': meAs(role),
  'GET /api/v1/auth/csrf': CSRF,
  'GET /api/v1/project-tag-keys': page(KEYS),
  'GET /api/v1/projects': page(PROJECTS),
});

const keysTable = async () => (await screen.findByText('project')).closest('table')!;

describe('settings: projects and tag rules', () => {
  it('lists the tag keys in order, says how they pick the project, and lists the projects with their values', async () => {
    mockApi(routes());
    renderAppAt('/settings/projects');

    const keys = await keysTable();
    const rows = within(keys).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([expect.stringContaining('project'), expect.stringContaining('team')]);
    expect(within(rows[0]!).getByText('1')).toBeTruthy();
    expect(within(rows[1]!).getByText('2')).toBeTruthy();
    expect(
      screen.getByText(/An instance's project is the value of the first of these tag keys it carries/),
    ).toBeTruthy();

    const nlp = (await screen.findByText('NLP')).closest('tr')!;
    expect(within(nlp).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['nlp', 'NLP team']);
    expect(within(nlp).getByRole('button', { name: 'Rename or merge NLP' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Projects and tag rules' }).getAttribute('aria-current')).toBe('page');
  });

  it('adds a tag key after the others and fetches the projects and the money again', async () => {
    let keys = KEYS;
    const server = mockApi({
      ...routes(),
      'GET /api/v1/project-tag-keys': () => page(keys),
      'POST /api/v1/project-tag-keys': (call) => {
        keys = [...keys, { id: 5, key: 'cost-center', position: 2 }];
        return { status: 201, body: { id: 5, ...(call.body as object) } };
      },
    });
    const user = userEvent.setup();
    const { queryClient } = renderAppAt('/settings/projects');
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');

    await keysTable();
    await user.click(screen.getByRole('button', { name: 'Add a tag key' }));
    const form = screen.getByRole('form', { name: 'Add a tag key' });
    await user.type(within(form).getByLabelText('Tag key'), ' cost-center ');
    await user.click(within(form).getByRole('button', { name: 'Add key' }));

    expect(await screen.findByText('Added tag key cost-center; projects are being assigned again.')).toBeTruthy();
    expect(server.find('POST', '/api/v1/project-tag-keys')[0]!.body).toEqual({ key: 'cost-center', position: 2 });
    expect(await screen.findByText('cost-center')).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Add a tag key' })).toBeNull();
    // Project assignment moves money: the projects, usage and cost reads are fetched again.
    const invalidated = invalidate.mock.calls.map(([filters]) => filters?.queryKey);
    for (const key of [['projects'], ['usage-projects'], ['usage-instances'], ['costs']]) expect(invalidated).toContainEqual(key);
  });

  it('shows why a tag key is refused next to the field', async () => {
    mockApi({
      ...routes(),
      'POST /api/v1/project-tag-keys': {
        status: 400,
        body: {
          error: { code: 'invalid', message: 'Please correct the errors below.', fields: { key: ['This tag key is already used for projects.'] } },
        },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/projects');

    await keysTable();
    await user.click(screen.getByRole('button', { name: 'Add a tag key' }));
    const form = screen.getByRole('form', { name: 'Add a tag key' });
    await user.type(within(form).getByLabelText('Tag key'), 'team');
    await user.click(within(form).getByRole('button', { name: 'Add key' }));

    expect(await within(form).findByText('This tag key is already used for projects.')).toBeTruthy();
    expect(within(form).getByLabelText('Tag key').getAttribute('aria-invalid')).toBe('true');
    expect(within(form).getByRole('alert').textContent).toContain('Please correct the errors below.');
  });

  it('removes a tag key only after asking', async () => {
    const server = mockApi({ ...routes(), 'DELETE /api/v1/project-tag-keys/2': { status: 204 } });
    const user = userEvent.setup();
    renderAppAt('/settings/projects');

    await keysTable();
    await user.click(screen.getByRole('button', { name: 'Remove tag key team' }));
    expect(screen.getByText(/Remove this tag key\?/)).toBeTruthy();
    expect(server.find('DELETE', '/api/v1/project-tag-keys/2')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Yes, remove' }));

    expect(await screen.findByText('Removed tag key team; projects are being assigned again.')).toBeTruthy();
    expect(server.find('DELETE', '/api/v1/project-tag-keys/2')).toHaveLength(1);
  });

  it('renames a project inline, sending only the name', async () => {
    let projects = PROJECTS;
    const server = mockApi({
      ...routes(),
      'GET /api/v1/projects': () => page(projects),
      'PATCH /api/v1/projects/3': () => {
        projects = [{ ...PROJECTS[0]!, name: 'Language' }, PROJECTS[1]!];
        return { body: projects[0] };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/projects');

    await user.click(await screen.findByRole('button', { name: 'Rename or merge NLP' }));
    const form = screen.getByRole('form', { name: 'Edit project NLP' });
    const name = within(form).getByLabelText('Name');
    await user.clear(name);
    await user.type(name, 'Language');
    await user.click(within(form).getByRole('button', { name: 'Save project' }));

    expect(await screen.findByText('Saved project Language; its spend is being recalculated.')).toBeTruthy();
    expect(server.find('PATCH', '/api/v1/projects/3')[0]!.body).toEqual({ name: 'Language' });
    const table = screen.getByText('Vision').closest('table')!;
    expect(await within(table).findByText('Language')).toBeTruthy();
    expect(within(table).queryByText('NLP')).toBeNull();
    expect(screen.queryByRole('form', { name: 'Edit project NLP' })).toBeNull();
  });

  it('merges tag values and shows a refusal clearly, keeping the form open', async () => {
    const server = mockApi({
      ...routes(),
      'PATCH /api/v1/projects/3': {
        status: 400,
        body: {
          error: { code: 'invalid', message: 'Please correct the errors below.', fields: { tag_values: ['Give at least one tag value.'] } },
        },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/projects');

    await user.click(await screen.findByRole('button', { name: 'Rename or merge NLP' }));
    const form = screen.getByRole('form', { name: 'Edit project NLP' });
    const values = within(form).getByLabelText('Tag values');
    expect((values as HTMLInputElement).value).toBe('nlp, NLP team');
    await user.clear(values);
    await user.type(values, 'nlp, vision');
    await user.click(within(form).getByRole('button', { name: 'Save project' }));

    expect(await within(form).findByText('Give at least one tag value.')).toBeTruthy();
    expect(values.getAttribute('aria-invalid')).toBe('true');
    expect(within(form).getByRole('alert').textContent).toContain('Please correct the errors below.');
    expect(server.find('PATCH', '/api/v1/projects/3')[0]!.body).toEqual({ tag_values: ['nlp', 'vision'] });
    expect(screen.getByRole('form', { name: 'Edit project NLP' })).toBeTruthy();
  });

  it('says what to do next when there are no keys and no projects', async () => {
    mockApi({ ...routes(), 'GET /api/v1/project-tag-keys': page([]), 'GET /api/v1/projects': page([]) });
    renderAppAt('/settings/projects');

    // No key set means the server's default key, "project"; adding one replaces it, so the text says so.
    expect(await screen.findByText(/No tag keys set, so the default key “project” names projects\. A key you add replaces that default/)).toBeTruthy();
    expect(await screen.findByText(/No projects yet\. They appear after the next sync/)).toBeTruthy();
  });

  it('shows a load error with a retry', async () => {
    let fail = true;
    mockApi({
      ...routes(),
      'GET /api/v1/projects': () =>
        fail ? { status: 500, body: { error: { code: 'server_error', message: 'Something broke on our side.', fields: {} } } } : page(PROJECTS),
    });
    const user = userEvent.setup();
    renderAppAt('/settings/projects');

    expect(await screen.findByText('Something broke on our side.')).toBeTruthy();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Vision')).toBeTruthy();
  });

  it('is read-only for a lead: the settings notice, no tag rules and nothing to press', async () => {
    const server = mockApi({
      ...routes('lead'),
      'GET /api/v1/members': page([
        { id: 1, user: { id: 7, email: 'lin@acme.example', name: 'Lin Wei' }, role: 'owner', created_at: '2025-01-01T00:00:00Z' },
        { id: 2, user: { id: 9, email: 'wu@acme.example', name: '' }, role: 'admin', created_at: '2025-01-01T00:00:00Z' },
        { id: 3, user: { id: 8, email: 'zhao@acme.example', name: 'Zhao Min' }, role: 'lead', created_at: '2025-02-01T00:00:00Z' },
      ]),
    });
    renderAppAt('/settings/projects');

    const notice = await screen.findByTestId('settings-managed');
    expect(notice.textContent).toContain("Settings are managed by your organization's owners and admins");
    const people = await within(notice).findByRole('list', { name: 'Owners and admins' });
    expect(within(people).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Lin Wei (lin@acme.example), Owner',
      'wu@acme.example, Admin',
    ]);
    expect(within(screen.getByRole('main')).queryAllByRole('button')).toHaveLength(0);
    expect(screen.queryByRole('form')).toBeNull();
    expect(server.find('GET', '/api/v1/project-tag-keys')).toHaveLength(0);
    expect(within(screen.getByRole('navigation', { name: 'Main' })).queryByRole('link', { name: 'Settings' })).toBeNull();
  });
});

describe('settings: who is offered them', () => {
  it('offers Settings to owners and admins only', () => {
    const offered = (role: string | null) => navFor(role).some((item) => item.to === '/settings');
    expect(offered('owner')).toBe(true);
    expect(offered('admin')).toBe(true);
    for (const role of ['lead', 'finance', 'viewer', null]) expect(offered(role)).toBe(false);
  });

  it('shows an owner the Settings link and the tag rules', async () => {
    mockApi(routes('admin'));
    renderAppAt('/settings/projects');
    await keysTable();
    expect(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Settings' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Add a tag key' })).toBeTruthy();
  });
});

describe('parseTagValues', () => {
  it('splits on commas and drops blanks', () => {
    expect(parseTagValues(' nlp , NLP team,, ')).toEqual(['nlp', 'NLP team']);
    expect(parseTagValues('')).toEqual([]);
  });
});
