import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { ACME, CSRF, emptyPage, makeMe, mockApi } from './mockApi';
import type { Org, RecommendationSettings, ThresholdField } from '../api/types';

const FIELDS: ThresholdField[] = [
  {
    name: 'lookback_days',
    label: 'Lookback (days)',
    rule: 'general',
    type: 'int',
    default: 14,
    value: null,
    help: 'Days of evidence every rule looks back over, unless it has its own.',
  },
  {
    name: 'idle_lookback_days',
    label: 'Stop idle: lookback (days)',
    rule: 'idle',
    type: 'nullable_int',
    default: null,
    value: null,
    help: 'Days the idle rule looks back over; empty: the general one.',
  },
  {
    name: 'idle_min_share',
    label: 'Idle share of observed hours (0-1)',
    rule: 'idle',
    type: 'float',
    default: 0.95,
    value: 0.9,
    help: "Share of observed hours that must be idle for 'idle around the clock'.",
  },
  {
    name: 'spot_tags',
    label: 'Spot: interruption-tolerant tags',
    rule: 'spot',
    type: 'tags',
    default: ['interruptible=true', 'workload=hpo'],
    value: null,
    help: 'Tags (key=value, case-insensitive) that mark work as interruption-tolerant; only such instances are offered spot.',
  },
];

const SETTINGS: RecommendationSettings = {
  thresholds: { idle_min_share: 0.9 },
  reserved_prices: [{ region: 'ap-shanghai', instance_type: 'GN7.2XLARGE32', hourly: '2.5', term_years: 1, currency: 'CNY' }],
  fields: FIELDS,
};

const URL = '/api/v1/recommendations/settings';

function meAs(role: Org['role']) {
  const org = { ...ACME, role };
  return { body: makeMe({ organization: org, organizations: [org] }) };
}

function routes(role: Org['role'], patch?: Parameters<typeof mockApi>[0][string]) {
  return {
    'GET /api/v1/me': meAs(role),
    'GET /api/v1/auth/csrf': CSRF,
    [`GET ${URL}`]: { body: SETTINGS },
    'GET /api/v1/members': { body: emptyPage },
    // The tab also holds the organization's automation switch (automation.test.tsx covers it).
    'GET /api/v1/automation/settings': { body: { paused: false } },
    ...(patch ? { [`PATCH ${URL}`]: patch } : {}),
  };
}

describe('settings: recommendation thresholds', () => {
  it('groups the thresholds by the rule the API names, each with its help and default, the override filled in', async () => {
    mockApi(routes('owner'));
    renderAppAt('/settings/recommendations');

    const form = await screen.findByRole('form', { name: 'Recommendation thresholds' });
    const groups = within(form)
      .getAllByRole('group')
      .map((group) => group.querySelector('legend')!.textContent);
    expect(groups).toEqual(['All rules', 'Stop idle', 'Move to spot']);
    const idle = within(form).getByRole('group', { name: 'Stop idle' });
    expect(within(idle).getAllByRole('textbox').map((input) => input.id)).toEqual([
      'threshold-idle_lookback_days',
      'threshold-idle_min_share',
    ]);

    // The override is the input's value; a threshold without one is empty, its default shown as the placeholder.
    const share = screen.getByRole('textbox', { name: 'Idle share of observed hours (0-1) idle_min_share', description: /must be idle.*Default: 0\.95\./ });
    expect((share as HTMLInputElement).value).toBe('0.9');
    const lookback = screen.getByRole('textbox', { name: 'Lookback (days) lookback_days', description: /Default: 14\./ });
    expect((lookback as HTMLInputElement).value).toBe('');
    expect(lookback.getAttribute('placeholder')).toBe('14');
    // A rule's own lookback defaults to the general one; tags show as a comma-separated list.
    expect(screen.getByRole('textbox', { name: 'Stop idle: lookback (days) idle_lookback_days', description: /Default: the general lookback\./ })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Spot: interruption-tolerant tags spot_tags' }).getAttribute('placeholder')).toBe('interruptible=true, workload=hpo');
    // The reserved-instance prices are listed, and said to be set through the API.
    const prices = screen.getByRole('region', { name: 'Reserved-instance prices' });
    expect(within(prices).getByRole('row', { name: /GN7\.2XLARGE32/ }).textContent).toContain('2.5 CNY/h');
    expect(prices.textContent).toContain('PATCH /api/v1/recommendations/settings');
  });

  it('marks an override and a change, and saves only the changed fields', async () => {
    // The API answers with the override stored (what it would send after this PATCH).
    const saved: RecommendationSettings = {
      ...SETTINGS,
      thresholds: { ...SETTINGS.thresholds, lookback_days: 21 },
      fields: FIELDS.map((f) => (f.name === 'lookback_days' ? { ...f, value: 21 } : f)),
    };
    const server = mockApi(routes('admin', { body: saved }));
    const user = userEvent.setup();
    renderAppAt('/settings/recommendations');

    const shareRow = await screen.findByTestId('threshold-idle_min_share');
    expect(within(shareRow).getByText('Overridden')).toBeTruthy();
    const lookbackRow = screen.getByTestId('threshold-lookback_days');
    expect(within(lookbackRow).queryByText('Overridden')).toBeNull();
    expect(screen.getByRole('button', { name: 'No changes to save' })).toHaveProperty('disabled', true);

    await user.type(within(lookbackRow).getByRole('textbox'), '21');
    expect(within(lookbackRow).getByText('Changed')).toBeTruthy();
    // The same value written differently is no change.
    const share = within(shareRow).getByRole('textbox');
    await user.clear(share);
    await user.type(share, '0.90');
    expect(within(shareRow).queryByText('Changed')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Save 1 change' }));
    expect(await screen.findByText(/Saved 1 threshold\./)).toBeTruthy();
    expect(server.find('PATCH', URL).map((c) => c.body)).toEqual([{ thresholds: { lookback_days: 21 } }]);
    // After the save the new override is what the form holds, marked as one.
    expect(within(screen.getByTestId('threshold-lookback_days')).getByText('Overridden')).toBeTruthy();
  });

  it('resets a field to its default by sending null', async () => {
    const server = mockApi(routes('owner', { body: { ...SETTINGS, thresholds: {}, fields: FIELDS.map((f) => ({ ...f, value: null })) } }));
    const user = userEvent.setup();
    renderAppAt('/settings/recommendations');

    await user.click(await screen.findByRole('button', { name: 'Reset Idle share of observed hours (0-1) to default' }));
    const share = screen.getByRole('textbox', { name: 'Idle share of observed hours (0-1) idle_min_share' });
    expect((share as HTMLInputElement).value).toBe('');
    expect(within(screen.getByTestId('threshold-idle_min_share')).getByText('Changed')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Save 1 change' }));

    expect(await screen.findByRole('status')).toBeTruthy();
    expect(server.find('PATCH', URL).map((c) => c.body)).toEqual([{ thresholds: { idle_min_share: null } }]);
    expect(within(screen.getByTestId('threshold-idle_min_share')).queryByText('Overridden')).toBeNull();
  });

  it('shows the API’s refusal beside the threshold it names', async () => {
    const refusal = {
      status: 400,
      body: {
        error: {
          code: 'invalid',
          message: 'Invalid input: thresholds.idle_min_share: is a share, at most 1',
          fields: { 'thresholds.idle_min_share': ['is a share, at most 1'] },
        },
      },
    };
    const server = mockApi(routes('owner', refusal));
    const user = userEvent.setup();
    renderAppAt('/settings/recommendations');

    const share = await screen.findByRole('textbox', { name: 'Idle share of observed hours (0-1) idle_min_share' });
    await user.clear(share);
    await user.type(share, '1.5');
    await user.click(screen.getByRole('button', { name: 'Save 1 change' }));

    const invalid = await screen.findByRole('textbox', { name: 'Idle share of observed hours (0-1) idle_min_share', description: /is a share, at most 1/ });
    expect(invalid.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('textbox', { name: 'Lookback (days) lookback_days' }).getAttribute('aria-invalid')).toBeNull();
    expect(server.find('PATCH', URL)[0]!.body).toEqual({ thresholds: { idle_min_share: 1.5 } });
    // What is not a number goes out as typed, for the API to name (JSON would turn Infinity into a reset).
    await user.clear(invalid);
    await user.type(invalid, '1e400');
    await user.click(screen.getByRole('button', { name: 'Save 1 change' }));
    expect(server.find('PATCH', URL)[1]!.body).toEqual({ thresholds: { idle_min_share: '1e400' } });
  });

  it('shows an error with a retry when the thresholds cannot be loaded', async () => {
    let fail = true;
    mockApi({
      ...routes('owner'),
      [`GET ${URL}`]: () =>
        fail ? { status: 503, body: { error: { code: 'unavailable', message: 'Try again later.', fields: {} } } } : { body: SETTINGS },
    });
    const user = userEvent.setup();
    renderAppAt('/settings/recommendations');
    expect(await screen.findByText('Try again later.')).toBeTruthy();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('textbox', { name: 'Idle share of observed hours (0-1) idle_min_share' })).toBeTruthy();
  });

  for (const role of ['lead', 'viewer', 'finance'] as const) {
    it(`shows a ${role} the thresholds in force without a control`, async () => {
      const server = mockApi(routes(role, { body: SETTINGS }));
      renderAppAt('/settings/recommendations');

      const idle = await screen.findByRole('region', { name: 'Stop idle' });
      const share = within(idle).getByRole('row', { name: /idle_min_share/ });
      expect(share.textContent).toContain('0.9');
      expect(within(share).getByText('Overridden')).toBeTruthy();
      expect(within(share).getByText('0.95')).toBeTruthy();
      expect(screen.getByTestId('settings-managed')).toBeTruthy();
      expect(screen.queryAllByRole('textbox')).toHaveLength(0);
      expect(within(screen.getByRole('main')).queryAllByRole('button')).toHaveLength(0);
      expect(server.find('PATCH', URL)).toHaveLength(0);
    });
  }
});
