import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { emptyPage, makeMe, mockApi } from './mockApi';
import type { Instance, Project } from '../api/types';
import { tagEntries } from '../pages/InstancesPage';

function instance(overrides: Partial<Instance> = {}): Instance {
  return {
    id: 1,
    provider_id: 'ins-9bxebleo',
    name: 'train-t4-01',
    region: 'ap-guangzhou',
    zone: 'ap-guangzhou-3',
    instance_type: 'GN7.2XLARGE32',
    gpu_model: 'NVIDIA T4',
    gpu_count: 1,
    gpu_memory_gb: 16,
    cpu_cores: 8,
    memory_gb: 32,
    charge_type: 'POSTPAID_BY_HOUR',
    state: 'RUNNING',
    tags: { team: 'nlp', owner: 'zhao' },
    project: 'NLP',
    launched_at: '2025-05-01T00:00:00Z',
    expires_at: null,
    terminated_at: null,
    ...overrides,
  };
}

const INSTANCES: Instance[] = [
  instance(),
  instance({
    id: 2,
    provider_id: 'ins-a100x8',
    name: 'pretrain-a100',
    instance_type: 'GT4.41XLARGE948',
    gpu_model: 'NVIDIA A100',
    gpu_count: 8,
    gpu_memory_gb: 40,
    charge_type: 'PREPAID',
    expires_at: '2025-07-01T00:00:00Z',
    tags: {},
    project: null,
  }),
  instance({
    id: 3,
    provider_id: 'ins-spot1',
    name: '',
    charge_type: 'SPOTPAID',
    state: 'TERMINATED',
    terminated_at: '2025-06-10T00:00:00Z',
    gpu_model: 'NVIDIA A10',
    gpu_count: 0.25,
    gpu_memory_gb: 24,
  }),
];

const PROJECTS: Project[] = [
  { id: 3, name: 'NLP', slug: 'nlp', tag_values: ['nlp', 'NLP team'] },
  { id: 4, name: 'Vision', slug: 'vision', tag_values: [] },
];

describe('instances page', () => {
  it('shows each instance in words: GPUs, billing mode, state, project and tags', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      'GET /api/v1/instances': { body: { ...emptyPage, count: 3, results: INSTANCES } },
    });
    renderAppAt('/instances');

    const t4 = await screen.findByTestId('instance-ins-9bxebleo');
    expect(within(t4).getByText('train-t4-01')).toBeTruthy();
    expect(t4.textContent).toContain('1 x NVIDIA T4 (16 GB)');
    expect(t4.textContent).toContain('Pay-as-you-go');
    expect(t4.textContent).toContain('8 vCPU · 32 GB · ap-guangzhou-3');
    expect(within(t4).getByText('Running').className).toContain('badge--success');
    expect(t4.textContent).toContain('NLP');
    expect(within(t4).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['team: nlp', 'owner: zhao']);
    expect(t4.className).not.toContain('row--muted');

    const a100 = screen.getByTestId('instance-ins-a100x8');
    expect(a100.textContent).toContain('8 x NVIDIA A100 (40 GB)');
    expect(a100.textContent).toContain('Monthly subscription');
    expect(a100.textContent).toContain('Expires 1 Jul 2025');
    expect(within(a100).getByText('Unallocated')).toBeTruthy();

    const spot = screen.getByTestId('instance-ins-spot1');
    expect(spot.textContent).toContain('Spot');
    expect(spot.textContent).toContain('0.25 x NVIDIA A10 (24 GB)');
    expect(within(spot).getByText('Terminated').className).toContain('badge--muted');
    expect(spot.className).toContain('row--muted');
    expect(within(spot).getAllByText('ins-spot1').length).toBeGreaterThan(0);

    const get = server.find('GET', '/api/v1/instances')[0]!;
    expect(get.query.get('page')).toBe('1');
    expect(get.query.get('page_size')).toBe('50');
    expect(get.query.has('region')).toBe(false);
  });

  it('filters by region, billing mode and state, back on page 1, and pages through', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      'GET /api/v1/instances': (call) => ({
        body: {
          ...emptyPage,
          count: call.query.get('region') ? 1 : 120,
          results: call.query.get('page') === '2' ? [INSTANCES[1]] : [INSTANCES[0]],
        },
      }),
    });
    const user = userEvent.setup();
    renderAppAt('/instances');
    const last = () => server.find('GET', '/api/v1/instances').at(-1)!.query;

    await screen.findByTestId('instance-ins-9bxebleo');
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByTestId('instance-ins-a100x8')).toBeTruthy();
    expect(last().get('page')).toBe('2');

    await user.selectOptions(screen.getByLabelText('Region'), 'ap-guangzhou');
    await waitFor(() => expect(last().get('region')).toBe('ap-guangzhou'));
    expect(last().get('page')).toBe('1');
    expect(await screen.findByTestId('instance-ins-9bxebleo')).toBeTruthy();
    expect(screen.queryByText(/Page \d of/)).toBeNull();

    await user.selectOptions(screen.getByLabelText('Billing'), 'SPOTPAID');
    await user.selectOptions(screen.getByLabelText('State'), 'STOPPED');
    await waitFor(() => expect(last().get('state')).toBe('STOPPED'));
    expect(last().get('charge_type')).toBe('SPOTPAID');
    expect(last().get('region')).toBe('ap-guangzhou');
    expect(window.location.search).toBe('?region=ap-guangzhou&charge_type=SPOTPAID&state=STOPPED');

    // Back to the unfiltered list: its first page is still in the query cache (fresh), so it shows
    // again without a request.
    const requestsBefore = server.find('GET', '/api/v1/instances').length;
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(await screen.findByText('Page 1 of 3')).toBeTruthy();
    expect(window.location.search).toBe('');
    expect(server.find('GET', '/api/v1/instances')).toHaveLength(requestsBefore);
  });

  it('says when no instance matches the filters', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      'GET /api/v1/instances': { body: emptyPage },
    });
    renderAppAt('/instances?state=STOPPED');

    expect(await screen.findByText('No instances match these filters.')).toBeTruthy();
    expect((screen.getByLabelText('State') as HTMLSelectElement).value).toBe('STOPPED');
    expect(screen.queryByTestId('instances-empty')).toBeNull();
  });

  it('filters by the project in the URL, named from the projects list', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
      'GET /api/v1/instances': { body: { ...emptyPage, count: 1, results: [INSTANCES[0]] } },
    });
    renderAppAt('/instances?project=3');

    await screen.findByTestId('instance-ins-9bxebleo');
    expect(server.find('GET', '/api/v1/instances')[0]!.query.get('project')).toBe('3');
    const select = screen.getByLabelText('Project') as HTMLSelectElement;
    await waitFor(() => expect(select.selectedOptions[0]!.textContent).toBe('NLP'));
  });

  it('keeps the honest empty state, pointing to Settings → Cloud accounts', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      'GET /api/v1/instances': { body: emptyPage },
    });
    renderAppAt('/instances');

    const empty = await screen.findByTestId('instances-empty');
    expect(empty.textContent).toContain('No instances yet');
    expect(empty.textContent).toContain('needs a connected Tencent Cloud account');
    expect(within(empty).getByRole('link', { name: 'Settings → Cloud accounts' }).getAttribute('href')).toBe(
      '/settings/cloud-accounts',
    );
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows a load error with a retry', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
      'GET /api/v1/instances': () =>
        fail
          ? { status: 500, body: { error: { code: 'server_error', message: 'Something broke on our side.', fields: {} } } }
          : { body: { ...emptyPage, count: 1, results: [INSTANCES[0]] } },
    });
    const user = userEvent.setup();
    renderAppAt('/instances');

    expect(await screen.findByText('Something broke on our side.')).toBeTruthy();
    expect(screen.queryByTestId('instances-empty')).toBeNull();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('instance-ins-9bxebleo')).toBeTruthy();
  });
});

describe('instance tags', () => {
  it('reads key -> value tags and shows anything else as no tags', () => {
    expect(tagEntries({ team: 'nlp', cost_center: 42 })).toEqual([
      ['team', 'nlp'],
      ['cost_center', '42'],
    ]);
    expect(tagEntries(null)).toEqual([]);
    expect(tagEntries(['team'])).toEqual([]);
    expect(tagEntries('team=nlp')).toEqual([]);
  });
});

describe('projects page', () => {
  it('lists projects with their tag values and links to their instances', async () => {
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: { ...emptyPage, count: 2, results: PROJECTS } },
    });
    renderAppAt('/projects');

    const nlp = await screen.findByTestId('project-nlp');
    expect(within(nlp).getByText('NLP')).toBeTruthy();
    expect(
      within(within(nlp).getByRole('list', { name: 'Tag values of NLP' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['nlp', 'NLP team']);
    expect(within(nlp).getByRole('link', { name: 'Instances of NLP' }).getAttribute('href')).toBe('/instances?project=3');
    expect(screen.getByTestId('project-vision').textContent).toContain('No tag values');
    expect(screen.queryByTestId('projects-empty')).toBeNull();
    expect(server.find('GET', '/api/v1/projects')[0]!.query.get('page')).toBe('1');
  });

  it('shows an empty state when there are no projects', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      'GET /api/v1/projects': { body: emptyPage },
    });
    renderAppAt('/projects');

    const empty = await screen.findByTestId('projects-empty');
    expect(empty.textContent).toContain('No projects yet');
    expect(within(empty).getByRole('link', { name: 'Settings → Cloud accounts' }).getAttribute('href')).toBe(
      '/settings/cloud-accounts',
    );
    expect(screen.queryByRole('table')).toBeNull();
  });
});
