import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { ACME, CSRF, emptyPage, makeMe, mockApi } from './mockApi';
import type { AlertEvent, AlertSettings, Budget, Org, Project, ThresholdRule } from '../api/types';

const PROJECTS: Project[] = [{ id: 3, name: 'NLP', slug: 'nlp', tag_values: ['nlp'] }];
const page = <T,>(results: T[]) => ({ body: { ...emptyPage, count: results.length, results } });

const BUDGET: Budget = {
  id: 9,
  name: 'NLP training',
  scope: 'project',
  project: 3,
  amount: '10000.00',
  currency: 'CNY',
  actual_thresholds_pct: [50, 80, 100],
  forecast_thresholds_pct: [100],
  status: {
    month: '2026-11',
    spent: '8250.00',
    daily_average: '400.00',
    spent_before_today: '8250.00',
    known_purchases: '0.00',
    days_left: '3.5000',
    forecast: '9650.00',
    percent_used: '82.5',
    forecast_pct: '96.5',
    thresholds_crossed: [
      { threshold_pct: 50, basis: 'actual' },
      { threshold_pct: 80, basis: 'actual' },
    ],
    forecast_method: 'spent so far + average daily spend of the last 7 days x days left in the month',
  },
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
};

const RULE: ThresholdRule = {
  id: 2,
  name: 'Idle GPU',
  metric: 'gpu_util_pct',
  comparison: 'below',
  threshold: 30,
  duration_minutes: 10,
  project: null,
  enabled: true,
  tencent_alarm_policy: {
    command: "tccli monitor CreateAlarmPolicy --Module monitor --PolicyName 'GPU Ledger: Idle GPU' --MonitorType MT_QCE --Namespace cvm_device",
    request: {},
  },
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
};

const SETTINGS: AlertSettings = {
  webhook_url: 'https://hooks.example.com/gpu',
  webhook_secret_set: true,
  webhook_enabled: true,
  anomaly_k: 4,
  anomaly_min_amount: '50.00',
  anomaly_min_idle_gpu_hours: 4,
  anomaly_mad_floor_pct: 10,
  anomaly_mad_floor_amount: '10.00',
  anomaly_mad_floor_idle_gpu_hours: 0.5,
};

const ALERT: AlertEvent = {
  id: 40,
  kind: 'budget',
  severity: 'warning',
  title: 'NLP training passed 80% of its budget',
  message: 'Spent ¥8,250.00 of ¥10,000.00.',
  budget: 9,
  rule: null,
  project: 3,
  project_name: 'NLP',
  instance: null,
  instance_name: '',
  instance_provider_id: '',
  evidence: {},
  started_at: '2026-11-26T02:00:00Z',
  resolved_at: null,
  recovery_of: null,
  imported: false,
  summary: null,
  deliveries: [
    { channel: 'email', address: 'lin@acme.example', status: 'sent', attempts: 1, error: '', sent_at: '2026-11-26T02:00:05Z' },
    { channel: 'webhook', address: 'https://hooks.example.com/gpu', status: 'failed', attempts: 5, error: 'HTTP 502', sent_at: null },
  ],
};

function meAs(role: Org['role']) {
  const org = { ...ACME, role };
  return { body: makeMe({ organization: org, organizations: [org] }) };
}

const baseRoutes = {
  'GET /api/v1/auth/csrf': CSRF,
  'GET /api/v1/projects': page(PROJECTS),
};

describe('settings: budgets', () => {
  it('shows each budget with spent, forecast, the share used as a bar and the thresholds crossed', async () => {
    mockApi({ 'GET /api/v1/me': meAs('owner'), ...baseRoutes, 'GET /api/v1/budgets': page([BUDGET]) });
    renderAppAt('/settings/budgets');

    const row = (await screen.findByText('NLP training')).closest('tr')!;
    expect(row.textContent).toContain('NLP'); // the project's name, not its id
    expect(row.textContent).toContain('¥10,000.00');
    expect(row.textContent).toContain('¥8,250.00');
    expect(row.textContent).toContain('¥9,650.00');
    expect(row.textContent).toContain('96.5% of the budget');
    // The forecast beside its parts: before today + daily average × days left + purchases = 8,250 + 400 × 3.5 + 0 = 9,650.
    expect(row.textContent).toContain('¥8,250.00 before today + ¥400.00/day × 3.5 days left + ¥0.00 of purchases');
    expect(8250 + 400 * 3.5).toBe(9650);
    // The bar's figure is the API's, and it is spent ÷ amount of the figures beside it.
    const bar = within(row).getByRole('meter', { name: 'Share of the budget spent' });
    expect(bar.getAttribute('aria-valuenow')).toBe('82.5');
    expect((8250 / 10000) * 100).toBe(82.5);
    expect(row.textContent).toContain('82.5%');
    expect(within(row).getByText('50% of spend')).toBeTruthy();
    expect(within(row).getByText('80% of spend')).toBeTruthy();
    expect(within(row).queryByText('100% of forecast')).toBeNull();
  });

  it('shows a 400 from the API next to the field it names', async () => {
    const server = mockApi({
      'GET /api/v1/me': meAs('admin'),
      ...baseRoutes,
      'GET /api/v1/budgets': page([]),
      'POST /api/v1/budgets': {
        status: 400,
        body: {
          error: {
            code: 'invalid',
            message: 'Please correct the errors below.',
            fields: { amount: ['Ensure this value is greater than or equal to 0.'] },
          },
        },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/budgets');

    expect(await screen.findByText(/Choose “New budget”/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'New budget' }));
    const form = screen.getByRole('form', { name: 'Budget' });
    await user.type(within(form).getByLabelText('Name'), 'Vision');
    await user.selectOptions(within(form).getByLabelText('For'), 'NLP');
    await user.type(within(form).getByLabelText(/Amount per month/), '-5');
    const forecast = within(form).getByLabelText('Alert at % of forecast');
    await user.clear(forecast);
    await user.type(forecast, '90,100');
    await user.click(within(form).getByRole('button', { name: 'Create budget' }));

    const amount = await screen.findByRole('textbox', {
      name: 'Amount per month (CNY)',
      description: /Ensure this value is greater than or equal to 0\./,
    });
    expect(amount.getAttribute('aria-invalid')).toBe('true');
    expect(within(form).getByLabelText('Name').getAttribute('aria-invalid')).toBeNull();
    expect(server.find('POST', '/api/v1/budgets')[0]!.body).toEqual({
      name: 'Vision',
      project: 3,
      amount: '-5',
      actual_thresholds_pct: [50, 80, 100],
      forecast_thresholds_pct: [90, 100],
    });
  });

  it('shows an error with a retry when the budgets cannot be loaded', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': meAs('owner'),
      ...baseRoutes,
      'GET /api/v1/budgets': () =>
        fail ? { status: 503, body: { error: { code: 'unavailable', message: 'Try again later.', fields: {} } } } : page([BUDGET]),
    });
    const user = userEvent.setup();
    renderAppAt('/settings/budgets');
    expect(await screen.findByText('Try again later.')).toBeTruthy();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('NLP training')).toBeTruthy();
  });

  it('edits a budget from its current values and deletes one after asking', async () => {
    let budgets = [BUDGET];
    const server = mockApi({
      'GET /api/v1/me': meAs('owner'),
      ...baseRoutes,
      'GET /api/v1/budgets': () => page(budgets),
      'PATCH /api/v1/budgets/9': (call) => {
        budgets = [{ ...BUDGET, ...(call.body as Partial<Budget>) }];
        return { body: budgets[0] };
      },
      'DELETE /api/v1/budgets/9': () => {
        budgets = [];
        return { status: 204 };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/budgets');
    await user.click(await screen.findByRole('button', { name: 'Edit NLP training' }));
    const form = screen.getByRole('form', { name: 'Budget' });
    expect((within(form).getByLabelText('Alert at % of forecast') as HTMLInputElement).value).toBe('100');
    const amount = within(form).getByLabelText(/Amount per month/);
    expect((amount as HTMLInputElement).value).toBe('10000.00');
    await user.clear(amount);
    await user.type(amount, '12000');
    await user.click(within(form).getByRole('button', { name: 'Save budget' }));
    await waitFor(() => expect(server.find('PATCH', '/api/v1/budgets/9')).toHaveLength(1));
    expect(server.find('PATCH', '/api/v1/budgets/9')[0]!.body).toEqual({
      name: 'NLP training',
      project: 3,
      amount: '12000',
      actual_thresholds_pct: [50, 80, 100],
      forecast_thresholds_pct: [100],
    });
    expect(await screen.findByText('Saved budget “NLP training”.')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Delete NLP training' }));
    await user.click(screen.getByRole('button', { name: 'Yes, delete' }));
    expect(await screen.findByText(/No budgets yet\. Choose “New budget”/)).toBeTruthy();
    expect(server.find('DELETE', '/api/v1/budgets/9')).toHaveLength(1);
  });
});

describe('settings: alerts', () => {
  const alertRoutes = {
    ...baseRoutes,
    'GET /api/v1/alert-rules': page([RULE]),
    'GET /api/v1/alert-recipients': page([]),
    'GET /api/v1/alerts/settings': { body: SETTINGS },
    'GET /api/v1/alerts': page([ALERT]),
  };

  it('shows each rule with its Tencent tccli command and a copy button, and the alert history', async () => {
    mockApi({ 'GET /api/v1/me': meAs('owner'), ...alertRoutes });
    renderAppAt('/settings/alerts');
    const row = (await screen.findByText('Idle GPU')).closest('tr')!;
    expect(row.textContent).toContain('GPU utilization (%) below 30 for 10 min');
    expect(within(row).getByTestId('tccli-2').textContent).toBe(RULE.tencent_alarm_policy.command);
    expect(within(row).getByRole('button', { name: 'Copy the command for Idle GPU' })).toBeTruthy();

    const alert = (await screen.findByText('NLP training passed 80% of its budget')).closest('tr')!;
    expect(alert.textContent).toContain('1 of 2 delivered');
    expect(alert.textContent).toContain('Not delivered to https://hooks.example.com/gpu: HTTP 502');
    expect(screen.getByText('Nobody listed: owners and admins receive every alert.')).toBeTruthy();
  });

  it('marks an alert of imported history as reported in the summary, not as undelivered', async () => {
    const imported: AlertEvent = {
      ...ALERT,
      id: 41,
      kind: 'anomaly',
      title: 'Spend of project NLP far above normal on 2026-11-20',
      imported: true,
      summary: 42,
      deliveries: [],
    };
    const summary: AlertEvent = {
      ...ALERT,
      id: 42,
      kind: 'history',
      severity: 'info',
      title: 'What the imported history shows: 1 alert',
      budget: null,
      project: null,
      project_name: '',
    };
    mockApi({ 'GET /api/v1/me': meAs('owner'), ...alertRoutes, 'GET /api/v1/alerts': page([summary, imported]) });
    renderAppAt('/settings/alerts');
    const row = (await screen.findByText('Spend of project NLP far above normal on 2026-11-20')).closest('tr')!;
    expect(row.textContent).toContain('Imported history: not sent on its own, reported in the summary.');
    expect(row.textContent).not.toContain('0 of 0 delivered');
    const summaryRow = screen.getByText('What the imported history shows: 1 alert').closest('tr')!;
    expect(summaryRow.textContent).toContain('Imported history');
    expect(summaryRow.textContent).toContain('1 of 2 delivered');
  });

  it('lets an owner add a threshold rule and sends the chosen condition', async () => {
    const server = mockApi({
      'GET /api/v1/me': meAs('owner'),
      ...alertRoutes,
      'POST /api/v1/alert-rules': (call) => ({ status: 201, body: { ...RULE, id: 3, ...(call.body as object) } }),
    });
    const user = userEvent.setup();
    renderAppAt('/settings/alerts');
    await user.click(await screen.findByRole('button', { name: 'New rule' }));
    const form = screen.getByRole('form', { name: 'Threshold rule' });
    await user.type(within(form).getByLabelText('Name'), 'Hot GPU');
    await user.selectOptions(within(form).getByLabelText('Metric'), 'GPU temperature (°C)');
    await user.selectOptions(within(form).getByLabelText('Alert when'), 'above');
    const threshold = within(form).getByLabelText('Threshold');
    await user.clear(threshold);
    await user.type(threshold, '85');
    await user.selectOptions(within(form).getByLabelText('Instances of'), 'NLP');
    await user.click(within(form).getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(server.find('POST', '/api/v1/alert-rules')).toHaveLength(1));
    expect(server.find('POST', '/api/v1/alert-rules')[0]!.body).toEqual({
      name: 'Hot GPU',
      metric: 'gpu_temp_c',
      comparison: 'above',
      threshold: 85,
      duration_minutes: 10,
      project: 3,
      enabled: true,
    });
    expect(await screen.findByText('Saved rule “Hot GPU”.')).toBeTruthy();
  });

  it('keeps the webhook secret write-only: never shown, sent only when typed', async () => {
    const server = mockApi({
      'GET /api/v1/me': meAs('owner'),
      ...alertRoutes,
      'PATCH /api/v1/alerts/settings': (call) => ({
        body: { ...SETTINGS, webhook_url: (call.body as { webhook_url: string }).webhook_url },
      }),
    });
    const user = userEvent.setup();
    renderAppAt('/settings/alerts');
    const secret = (await screen.findByLabelText('Signing secret')) as HTMLInputElement;
    expect(secret.type).toBe('password');
    expect(secret.value).toBe('');
    expect(screen.getByText(/A secret is stored and never shown/)).toBeTruthy();

    const url = screen.getByLabelText('Webhook URL');
    await user.clear(url);
    await user.type(url, 'https://hooks.example.com/new');
    await user.click(screen.getByRole('button', { name: 'Save webhook' }));
    await waitFor(() => expect(server.find('PATCH', '/api/v1/alerts/settings')).toHaveLength(1));
    expect(server.find('PATCH', '/api/v1/alerts/settings')[0]!.body).toEqual({
      webhook_url: 'https://hooks.example.com/new',
      webhook_enabled: true,
    });

    await user.type(secret, 'a-new-signing-secret-123');
    await user.click(screen.getByRole('button', { name: 'Save webhook' }));
    await waitFor(() => expect(server.find('PATCH', '/api/v1/alerts/settings')).toHaveLength(2));
    expect((server.find('PATCH', '/api/v1/alerts/settings')[1]!.body as { webhook_secret: string }).webhook_secret).toBe(
      'a-new-signing-secret-123',
    );
    await waitFor(() => expect(secret.value).toBe(''));
    expect(document.body.innerHTML).not.toContain('a-new-signing-secret-123');
  });
});

describe('settings: budgets and alerts for lead, viewer and finance', () => {
  // Budgets and alert settings are written by owners and admins only (the API's MANAGER_ROLES): everyone
  // else gets the notice instead of the tabs, on every settings address.
  for (const role of ['lead', 'viewer', 'finance'] as const) {
    it(`shows a ${role} who manages budgets and alerts, and no action button`, async () => {
      const server = mockApi({
        'GET /api/v1/me': meAs(role),
        ...baseRoutes,
        'GET /api/v1/budgets': page([BUDGET]),
        'GET /api/v1/alert-rules': page([RULE]),
        'GET /api/v1/alert-recipients': page([{ id: 1, role: 'lead', user_email: null, project: null, created_at: '2026-11-01T00:00:00Z' }]),
        'GET /api/v1/alerts/settings': { body: SETTINGS },
        'GET /api/v1/alerts': page([ALERT]),
        'GET /api/v1/members': page([
          { id: 1, user: { id: 7, email: 'lin@acme.example', name: 'Lin Wei' }, role: 'admin', created_at: '2025-01-01T00:00:00Z' },
        ]),
      });
      for (const path of ['/settings/budgets', '/settings/alerts']) {
        const { unmount } = renderAppAt(path);
        const notice = await screen.findByTestId('settings-managed');
        expect(notice.textContent).toContain("Settings are managed by your organization's owners and admins");
        expect(await within(notice).findByText('Lin Wei (lin@acme.example), Admin')).toBeTruthy();
        expect(within(screen.getByRole('main')).queryAllByRole('button')).toHaveLength(0);
        expect(screen.queryByText('NLP training')).toBeNull();
        expect(screen.queryByLabelText('Webhook URL')).toBeNull();
        // Not offered in the navigation either.
        expect(within(screen.getByRole('navigation', { name: 'Main' })).queryByRole('link', { name: 'Settings' })).toBeNull();
        unmount();
      }
      expect(server.find('GET', '/api/v1/budgets')).toHaveLength(0);
      expect(server.find('GET', '/api/v1/alert-rules')).toHaveLength(0);
    });
  }
});
