/**
 * "Run it for me" (issue 22) in the dashboard: the recommendation's automation panel, the cloud account's write
 * credential and switch, and the organization's pause, against a small fake of the API.
 */
import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { ACME, CSRF, emptyPage, makeMe, mockApi, type MockResponse, type RecordedCall } from './mockApi';
import type { CloudAccount, Org, RecommendationAutomation, RecommendationDetail } from '../api/types';

vi.mock('../components/Chart', async () => {
  const { createElement } = await import('react');
  return { Chart: () => createElement('div', { 'data-testid': 'chart' }) };
});

const SCHEDULE: RecommendationDetail = {
  id: 11,
  kind: 'schedule',
  kind_label: 'Day/night schedule',
  role: 'plan',
  status: 'accepted',
  status_reason: '',
  snoozed_until: null,
  target: 'instance',
  instance: 4,
  cloud_instance_id: 'ins-night01',
  instance_name: 'night-t4-01',
  members: [],
  project: 3,
  project_name: 'NLP',
  title: 'Stop night-t4-01 outside working hours',
  explanation: 'night-t4-01 sits idle on weeknights.',
  saving: { monthly_amount: '1234.56', currency: 'CNY', formula: '300 h x 4.1152 CNY/h', price_source: 'bills' },
  paid_while_waiting: null,
  upsize: null,
  confidence: { level: 'medium', evidence_days: 13.5, coverage_pct: 96.4 },
  risk: { level: 2, reason: 'Work started in the window is cut off.' },
  first_seen_at: '2026-10-20T02:00:00Z',
  last_seen_at: '2026-10-27T02:00:00Z',
  accepted_at: '2026-10-27T02:00:00Z',
  resolved_at: null,
  parameters: [],
  evidence: { chart: 'metrics', chart_range: null, figures: [] },
  action: { steps: [], commands: ['tccli cvm StopInstances --InstanceIds \'["ins-night01"]\''], cron: [], window: null, stopped_mode: null, still_billed_when_stopped: [] },
  history: [],
  realised: null,
};

const NEXT = [
  { at: '2026-10-28T01:00:00Z', kind: 'start' as const, instance_id: 4, instance_name: 'night-t4-01' },
  { at: '2026-10-27T11:00:00Z', kind: 'stop' as const, instance_id: 4, instance_name: 'night-t4-01' },
];

const PLAN = {
  id: 3,
  kind: 'schedule',
  status: 'active' as const,
  skip_dates: [],
  grace_hours: 24,
  memory_held_confirmed: false,
  told_at: null,
  created_at: '2026-10-27T03:00:00Z',
  created_by: { id: 7, email: 'lin@acme.example', name: 'Lin Wei' },
  ended_at: null,
};

function automation(overrides: Partial<RecommendationAutomation> = {}): RecommendationAutomation {
  return { available: true, unavailable_reason: null, unavailable_reason_text: null, plan: null, next_actions: NEXT, weeks: [], ...overrides };
}

const AUTOMATION_URL = '/api/v1/recommendations/11/automation';

function fakeServer({
  role = 'owner',
  language = 'en',
  state = automation(),
  rec = SCHEDULE,
}: { role?: Org['role']; language?: 'en' | 'zh-hans'; state?: RecommendationAutomation; rec?: RecommendationDetail } = {}) {
  let current = state;
  const org = { ...ACME, role };
  const server = mockApi({
    'GET /api/v1/me': { body: makeMe({ language, organization: org, organizations: [org] }) },
    'GET /api/v1/auth/csrf': CSRF,
    [`GET /api/v1/recommendations/${rec.id}`]: { body: rec },
    [`GET ${AUTOMATION_URL}`]: () => ({ body: current }),
    [`POST ${AUTOMATION_URL}`]: (call: RecordedCall) => {
      const body = call.body as { skip_dates?: string[] };
      current = automation({ plan: { ...PLAN, skip_dates: body.skip_dates ?? [] } });
      return { status: 201, body: current };
    },
    [`PATCH ${AUTOMATION_URL}`]: (call: RecordedCall) => {
      const body = call.body as { skip_dates?: string[]; status?: 'active' | 'paused' };
      const plan = { ...current.plan!, ...body };
      current = automation({ plan, next_actions: plan.status === 'paused' ? [] : NEXT });
      return { body: current };
    },
    [`DELETE ${AUTOMATION_URL}`]: () => {
      current = automation({ plan: { ...current.plan!, status: 'ended', ended_at: '2026-10-27T05:00:00Z' } });
      return { status: 204 };
    },
    'GET /api/v1/automation/actions': {
      body: {
        count: 1,
        next: null,
        previous: null,
        results: [
          {
            id: 1,
            plan: 3,
            recommendation: 11,
            instance: 4,
            instance_name: 'night-t4-01',
            instance_provider_id: 'ins-night01',
            kind: 'stop',
            due_at: '2026-10-26T11:00:00Z',
            status: 'skipped',
            attempts: 1,
            next_attempt_at: '2026-10-26T11:00:00Z',
            request_id: '',
            reason: 'busy_gpu_util',
            reason_params: {},
            reason_text: 'server words',
            sent_at: null,
            finished_at: '2026-10-26T11:00:30Z',
          },
        ],
      },
    },
  });
  return server;
}

describe('the recommendation\'s "Run it for me" panel', () => {
  it('says in plain words why it cannot run, with where to fix it', async () => {
    fakeServer({ state: automation({ available: false, unavailable_reason: 'read_only_credential', unavailable_reason_text: 'x' }) });
    renderAppAt('/recommendations/11');
    // The first render of the file loads the whole app: give a loaded machine time for it.
    const note = await screen.findByTestId('automation-unavailable', {}, { timeout: 10_000 });
    expect(note.textContent).toContain('The cloud account has only a read-only credential.');
    expect(within(note).getByRole('link').getAttribute('href')).toBe('/settings/cloud-accounts');
    expect(screen.queryByRole('button', { name: 'Run it for me' })).toBeNull();
  });

  it('asks to accept first, in Chinese too', async () => {
    fakeServer({ language: 'zh-hans', state: automation({ available: false, unavailable_reason: 'not_accepted' }) });
    renderAppAt('/recommendations/11');
    expect((await screen.findByTestId('automation-unavailable')).textContent).toContain('请先采纳这条建议');
  });

  it('lets the owner turn it on with skip dates, then shows the next stops and starts in the org\'s timezone', async () => {
    const server = fakeServer();
    const user = userEvent.setup();
    renderAppAt('/recommendations/11');
    const panel = await screen.findByTestId('automation-panel');
    // Before: what it would do.
    expect(within(await within(panel).findByTestId('automation-preview')).getAllByRole('row')).toHaveLength(3);
    await user.type(within(panel).getByTestId('automation-skip-input'), '2030-12-25');
    await user.click(within(panel).getByRole('button', { name: 'Add date' }));
    await user.click(within(panel).getByRole('button', { name: 'Run it for me' }));
    await waitFor(() => expect(server.find('POST', AUTOMATION_URL)).toHaveLength(1));
    expect(server.find('POST', AUTOMATION_URL)[0]!.body).toEqual({ skip_dates: ['2030-12-25'] });

    const status = await within(panel).findByTestId('automation-status');
    expect(status.getAttribute('data-status')).toBe('active');
    expect(status.textContent).toBe('Running');
    const rows = within(within(panel).getByTestId('automation-next-actions')).getAllByRole('row').slice(1);
    // Asia/Shanghai: 11:00 UTC is 19:00, the stop first.
    expect(rows.map((r) => r.textContent)).toEqual(['Tue, 27 Oct 2026, 19:00Stopnight-t4-01', 'Wed, 28 Oct 2026, 09:00Startnight-t4-01']);
    expect(within(panel).getByTestId('automation-skip-dates').textContent).toContain('25 Dec 2030');
    const history = await within(panel).findByTestId('automation-history');
    expect(history.textContent).toContain('The GPU was busy, so it was not stopped.');
    expect(history.textContent).toContain('Skipped');
  });

  it('adds and removes a skip date, pauses, resumes and turns off (after asking)', async () => {
    const server = fakeServer({ state: automation({ plan: PLAN }) });
    const user = userEvent.setup();
    renderAppAt('/recommendations/11');
    const panel = await screen.findByTestId('automation-panel');
    await within(panel).findByTestId('automation-next-actions');

    await user.type(within(panel).getByTestId('automation-skip-input'), '2030-01-01');
    await user.click(within(panel).getByRole('button', { name: 'Add date' }));
    await waitFor(() => expect(server.find('PATCH', AUTOMATION_URL)).toHaveLength(1));
    expect(server.find('PATCH', AUTOMATION_URL)[0]!.body).toEqual({ skip_dates: ['2030-01-01'] });
    await user.click(await within(panel).findByRole('button', { name: /^Stop skipping/ }));
    await waitFor(() => expect(server.find('PATCH', AUTOMATION_URL)).toHaveLength(2));
    expect(server.find('PATCH', AUTOMATION_URL)[1]!.body).toEqual({ skip_dates: [] });

    await user.click(within(panel).getByRole('button', { name: 'Pause' }));
    expect((await within(panel).findByTestId('automation-paused-note')).textContent).toContain('Paused');
    expect(within(panel).getByTestId('automation-status').getAttribute('data-status')).toBe('paused');
    expect(within(panel).queryByTestId('automation-next-actions')).toBeNull();
    expect(server.find('PATCH', AUTOMATION_URL)[2]!.body).toEqual({ status: 'paused' });

    await user.click(within(panel).getByRole('button', { name: 'Resume' }));
    await within(panel).findByTestId('automation-next-actions');
    expect(server.find('PATCH', AUTOMATION_URL)[3]!.body).toEqual({ status: 'active' });

    await user.click(within(panel).getByRole('button', { name: 'Turn off' }));
    expect(server.find('DELETE', AUTOMATION_URL)).toHaveLength(0);
    await user.click(within(panel).getByRole('button', { name: 'Yes, turn off' }));
    expect(await within(panel).findByTestId('automation-ended')).toBeTruthy();
    expect(server.find('DELETE', AUTOMATION_URL)).toHaveLength(1);
  });

  it('asks to confirm the GPU memory before stopping an idle instance that holds it', async () => {
    const server = fakeServer({ rec: { ...SCHEDULE, kind: 'idle_held', kind_label: 'Idle, GPU memory held' } });
    const user = userEvent.setup();
    renderAppAt('/recommendations/11');
    const panel = await screen.findByTestId('automation-panel');
    await user.click(await within(panel).findByRole('button', { name: 'Run it for me' }));
    expect(within(panel).getByText('Confirm that stopping loses what is in GPU memory.')).toBeTruthy();
    expect(server.find('POST', AUTOMATION_URL)).toHaveLength(0);
    await user.click(within(panel).getByTestId('automation-memory-confirm'));
    await user.type(within(panel).getByRole('spinbutton', { name: /Grace period/ }), '4');
    await user.click(within(panel).getByRole('button', { name: 'Run it for me' }));
    await waitFor(() => expect(server.find('POST', AUTOMATION_URL)).toHaveLength(1));
    expect(server.find('POST', AUTOMATION_URL)[0]!.body).toEqual({ skip_dates: [], grace_hours: 4, memory_held_confirmed: true });
  });

  for (const role of ['viewer', 'lead'] as const) {
    it(`shows a ${role} who can turn it on, and no control`, async () => {
      fakeServer({ role, state: automation() });
      renderAppAt('/recommendations/11');
      expect((await screen.findByTestId('automation-who')).textContent).toBe('Only an owner or admin of the organization can turn this on.');
      expect(document.querySelector('[data-action^="automation-"]')).toBeNull();
    });
  }

  it('is not shown on a kind it cannot carry out', async () => {
    const server = fakeServer({ rec: { ...SCHEDULE, kind: 'subscription', kind_label: 'Switch to monthly subscription' } });
    renderAppAt('/recommendations/11');
    await screen.findByTestId('detail-explanation');
    expect(screen.queryByTestId('automation-panel')).toBeNull();
    expect(server.find('GET', AUTOMATION_URL)).toHaveLength(0);
  });
});

function account(overrides: Partial<CloudAccount> = {}): CloudAccount {
  return {
    id: 1,
    name: 'Production',
    provider: 'tencent',
    secret_id: 'AKIDread',
    has_write_credential: false,
    write_secret_id: '',
    automation_enabled: false,
    automation_tag: '',
    regions: ['ap-guangzhou'],
    site: 'china',
    endpoint: '',
    endpoint_scheme: 'https',
    currency: 'CNY',
    status: 'ok',
    last_error: '',
    last_error_at: null,
    sync: [],
    created_at: '2025-06-01T00:00:00Z',
    ...overrides,
  };
}

function settingsServer(routes: Record<string, MockResponse | ((call: RecordedCall) => MockResponse)>, role: Org['role'] = 'owner') {
  const org = { ...ACME, role };
  return mockApi({
    'GET /api/v1/me': { body: makeMe({ organization: org, organizations: [org] }) },
    'GET /api/v1/auth/csrf': CSRF,
    'GET /api/v1/members': { body: emptyPage },
    ...routes,
  });
}

describe('the cloud account\'s write credential', () => {
  it('shows the refusal next to the field, then saves a credential the server accepts', async () => {
    let saved = account();
    let attempts = 0;
    const server = settingsServer({
      'GET /api/v1/cloud-accounts': () => ({ body: { count: 1, next: null, previous: null, results: [saved] } }),
      'PUT /api/v1/cloud-accounts/1/write-credential': () => {
        attempts += 1;
        if (attempts === 1) {
          const message = 'This key may not call StopInstances (CAM permission cvm:StopInstances); nothing was saved.';
          return { status: 400, body: { error: { code: 'invalid', message: `Invalid input: secret_id: ${message}`, fields: { secret_id: [message] } } } };
        }
        saved = account({ has_write_credential: true, write_secret_id: 'AKIDwrite' });
        return { body: saved };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/cloud-accounts');
    const section = await screen.findByTestId('write-credential-1');
    expect(within(section).getByTestId('write-credential-status').getAttribute('data-has')).toBe('false');
    expect(section.textContent).toContain('cvm:StopInstances');
    expect(section.textContent).toContain('never terminates');
    await user.click(within(section).getByRole('button', { name: 'Add write credential' }));
    await user.type(within(section).getByLabelText('SecretId'), 'AKIDwrite');
    await user.type(within(section).getByLabelText('SecretKey'), 'secret');
    await user.click(within(section).getByRole('button', { name: 'Test and save' }));
    const field = await within(section).findByText(/may not call StopInstances/);
    expect(field.className).toBe('field-error');
    expect(within(section).queryByText(/Invalid input/)).toBeNull();

    await user.click(within(section).getByRole('button', { name: 'Test and save' }));
    expect(await screen.findByText('Saved the write credential of “Production”.')).toBeTruthy();
    expect(server.find('PUT', '/api/v1/cloud-accounts/1/write-credential')[1]!.body).toEqual({ secret_id: 'AKIDwrite', secret_key: 'secret' });
    expect(within(screen.getByTestId('write-credential-1')).getByTestId('write-credential-status').textContent).toContain('AKIDwrite');
  });

  it('shows why automation cannot be switched on without a write credential', async () => {
    const message = 'This account has only a read-only credential: add a write credential before turning automation on.';
    settingsServer({
      'GET /api/v1/cloud-accounts': { body: { count: 1, next: null, previous: null, results: [account()] } },
      'PATCH /api/v1/cloud-accounts/1': {
        status: 400,
        body: { error: { code: 'invalid', message: `Invalid input: automation_enabled: ${message}`, fields: { automation_enabled: [message] } } },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/cloud-accounts');
    const section = await screen.findByTestId('write-credential-1');
    await user.click(within(section).getByRole('checkbox', { name: 'Let GPU Ledger stop and start instances' }));
    expect((await within(section).findByTestId('automation-error')).textContent).toBe(message);
  });

  it('removes a credential after asking', async () => {
    let saved = account({ has_write_credential: true, write_secret_id: 'AKIDwrite', automation_enabled: true });
    const server = settingsServer({
      'GET /api/v1/cloud-accounts': () => ({ body: { count: 1, next: null, previous: null, results: [saved] } }),
      'DELETE /api/v1/cloud-accounts/1/write-credential': () => {
        saved = account();
        return { body: saved };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/cloud-accounts');
    const section = await screen.findByTestId('write-credential-1');
    expect(within(section).getByTestId('automation-enabled').getAttribute('data-enabled')).toBe('true');
    await user.click(within(section).getByRole('button', { name: 'Remove write credential' }));
    await user.click(within(section).getByRole('button', { name: 'Yes, remove' }));
    await waitFor(() => expect(within(screen.getByTestId('write-credential-1')).getByTestId('write-credential-status').getAttribute('data-has')).toBe('false'));
    expect(server.find('DELETE', '/api/v1/cloud-accounts/1/write-credential')).toHaveLength(1);
  });
});

describe('the organization\'s pause', () => {
  it('pauses all automation after a confirmation, and resumes it', async () => {
    let paused = false;
    const server = settingsServer({
      'GET /api/v1/recommendations/settings': { body: { thresholds: {}, fields: [], reserved_prices: [] } },
      'GET /api/v1/automation/settings': () => ({ body: { paused } }),
      'PATCH /api/v1/automation/settings': (call) => {
        paused = (call.body as { paused: boolean }).paused;
        return { body: { paused } };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/recommendations');
    const section = await screen.findByTestId('automation-org-settings');
    expect((await within(section).findByTestId('automation-org-state')).getAttribute('data-paused')).toBe('false');
    await user.click(within(section).getByRole('button', { name: 'Pause all automation' }));
    expect(server.find('PATCH', '/api/v1/automation/settings')).toHaveLength(0);
    await user.click(within(section).getByRole('button', { name: 'Yes, pause all' }));
    await waitFor(() => expect(within(section).getByTestId('automation-org-state').getAttribute('data-paused')).toBe('true'));
    expect(server.find('PATCH', '/api/v1/automation/settings')[0]!.body).toEqual({ paused: true });
    await user.click(within(section).getByRole('button', { name: 'Resume automation' }));
    await waitFor(() => expect(within(section).getByTestId('automation-org-state').getAttribute('data-paused')).toBe('false'));
  });
});
