import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAppAt } from './render';
import { ACME, CSRF, emptyPage, makeMe, mockApi } from './mockApi';
import type { DigestPreview, DigestSubscription, Holiday, Project } from '../api/types';
import { presetRange, todayIn } from '../dateRange';

const PROJECTS: Project[] = [
  { id: 3, name: 'NLP', slug: 'nlp', tag_values: ['nlp'] },
  { id: 4, name: 'Vision', slug: 'vision', tag_values: [] },
];

function subscription(overrides: Partial<DigestSubscription> = {}): DigestSubscription {
  return {
    id: 21,
    frequency: 'weekly',
    weekday: 0,
    day_of_month: 1,
    send_time: '09:00:00',
    timezone: '',
    effective_timezone: 'Asia/Shanghai',
    projects: [],
    workdays_only: true,
    is_active: true,
    next_send_at: '2026-12-07T01:00:00Z',
    unsubscribed_at: null,
    last_delivery: null,
    ...overrides,
  };
}

const page = <T,>(results: T[]) => ({ body: { ...emptyPage, count: results.length, results } });

/** The routes every Reports page load asks for. */
function reportsRoutes(subscriptions: () => DigestSubscription[], holidays: Holiday[] = []) {
  return {
    'GET /api/v1/auth/csrf': CSRF,
    'GET /api/v1/projects': page(PROJECTS),
    'GET /api/v1/digest-subscriptions': () => page(subscriptions()),
    'GET /api/v1/holidays': page(holidays),
  };
}

describe('reports: digest subscriptions', () => {
  it('creates a weekly digest of chosen projects and sends exactly the chosen fields', async () => {
    let subs: DigestSubscription[] = [];
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...reportsRoutes(() => subs),
      'POST /api/v1/digest-subscriptions': (call) => {
        const body = call.body as { frequency: 'weekly'; weekday: number; send_time: string; projects: number[]; workdays_only: boolean };
        subs = [subscription({ id: 30, ...body, send_time: `${body.send_time}:00`, effective_timezone: 'America/New_York' })];
        return { status: 201, body: subs[0] };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/reports');

    expect(await screen.findByText('You receive no digest yet.')).toBeTruthy();
    // The empty state says what to do next.
    expect(screen.getByText(/Choose “New digest”/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'New digest' }));
    const form = screen.getByRole('form', { name: 'Digest subscription' });
    await user.selectOptions(within(form).getByLabelText('Day of the week'), 'Wednesday');
    const time = within(form).getByLabelText('Send at');
    await user.clear(time);
    await user.type(time, '07:30');
    await user.type(within(form).getByLabelText('Timezone'), 'America/New_York');
    await user.click(within(form).getByLabelText('Chosen projects'));
    await user.click(within(form).getByLabelText('Vision'));
    await user.click(within(form).getByLabelText('Workdays only'));
    await user.click(within(form).getByRole('button', { name: 'Subscribe' }));

    await waitFor(() => expect(server.find('POST', '/api/v1/digest-subscriptions')).toHaveLength(1));
    expect(server.find('POST', '/api/v1/digest-subscriptions')[0]!.body).toEqual({
      frequency: 'weekly',
      weekday: 2,
      day_of_month: 1,
      send_time: '07:30',
      timezone: 'America/New_York',
      projects: [4],
      workdays_only: false,
    });
    // The list is fetched again and shows the new digest in words.
    const row = (await screen.findByText('Wednesday at 07:30')).closest('tr')!;
    expect(row.textContent).toContain('America/New_York');
    expect(row.textContent).toContain('Vision');
    expect(row.textContent).toContain('Every day');
    expect(screen.getByText(/Subscribed\./)).toBeTruthy();
  });

  it("says why a subscription's last digest failed, and nothing for one that was sent", async () => {
    const delivery = (status: 'sent' | 'failed', error: string) => ({
      id: status === 'sent' ? 7 : 8,
      period_start: '2026-11-22T16:00:00Z',
      period_end: '2026-11-29T16:00:00Z',
      scheduled_for: '2026-11-30T01:00:00Z',
      recipient: 'alice@acme.test',
      status,
      attempts: status === 'sent' ? 1 : 9,
      sent_at: status === 'sent' ? '2026-11-30T01:00:03Z' : null,
      message_id: status === 'sent' ? '<digest.1@acme.test>' : '',
      error,
    });
    const refused = "SMTPRecipientsRefused: {'alice@acme.test': (550, b'5.1.1 No such user here')}";
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...reportsRoutes(() => [
        subscription({ id: 21, last_delivery: delivery('failed', refused) }),
        subscription({ id: 22, weekday: 2, last_delivery: delivery('sent', '') }),
      ]),
    });
    renderAppAt('/reports');

    const failed = (await screen.findByText('Monday at 09:00')).closest('tr')!;
    expect(within(failed).getByText(`The last digest could not be sent: ${refused}`)).toBeTruthy();
    const sent = screen.getByText('Wednesday at 09:00').closest('tr')!;
    expect(within(sent).queryByText(/could not be sent/)).toBeNull();
  });

  it('shows an API field error next to its field', async () => {
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...reportsRoutes(() => []),
      'POST /api/v1/digest-subscriptions': {
        status: 400,
        body: { error: { code: 'invalid', message: 'Please correct the errors below.', fields: { timezone: ['Unknown timezone: Mars/Base.'] } } },
      },
    });
    const user = userEvent.setup();
    renderAppAt('/reports');
    await user.click(await screen.findByRole('button', { name: 'New digest' }));
    await user.type(screen.getByLabelText('Timezone'), 'Mars/Base');
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));
    const input = await screen.findByRole('textbox', { name: 'Timezone', description: /Unknown timezone: Mars\/Base\./ });
    expect(input.getAttribute('aria-invalid')).toBe('true');
  });

  it('previews the next digest: the HTML in a sandboxed frame with its charts inlined as data URLs', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    const preview: DigestPreview = {
      subject: 'Weekly GPU cost digest of Acme AI',
      html: '<html><body><h1>Spend</h1><img src="cid:spend-chart" alt="Bar chart"></body></html>',
      text: 'Spend ¥1,234.00',
      period_start: '2026-11-30T16:00:00Z',
      period_end: '2026-12-07T16:00:00Z',
      images: { 'spend-chart': png },
    };
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...reportsRoutes(() => [subscription()]),
      'GET /api/v1/digest-subscriptions/21/preview': { body: preview },
    });
    const user = userEvent.setup();
    renderAppAt('/reports');

    await user.click(await screen.findByRole('button', { name: 'Preview the digest sent Monday at 09:00' }));
    const panel = await screen.findByTestId('digest-preview');
    expect(await within(panel).findByText('Weekly GPU cost digest of Acme AI')).toBeTruthy();
    const frame = within(panel).getByTestId('digest-preview-frame') as HTMLIFrameElement;
    // Fully sandboxed (no scripts, no navigation), and nothing is fetched: the cid: image is a data: URL now.
    expect(frame.getAttribute('sandbox')).toBe('');
    const srcdoc = frame.getAttribute('srcdoc')!;
    expect(srcdoc).toContain(`<img src="${png}" alt="Bar chart">`);
    expect(srcdoc).not.toContain('cid:');
    expect(server.find('GET', '/api/v1/digest-subscriptions/21/preview')).toHaveLength(1);
  });

  it('falls back to the plain text when the preview has no HTML, and offers a retry after an error', async () => {
    let fail = true;
    mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...reportsRoutes(() => [subscription()]),
      'GET /api/v1/digest-subscriptions/21/preview': () =>
        fail
          ? { status: 500, body: { error: { code: 'server_error', message: 'Rendering failed.', fields: {} } } }
          : {
              body: {
                subject: 'Digest',
                html: '',
                text: 'Spend this week: ¥980.00',
                period_start: '2026-11-30T16:00:00Z',
                period_end: '2026-12-07T16:00:00Z',
                images: {},
              },
            },
    });
    const user = userEvent.setup();
    renderAppAt('/reports');
    await user.click(await screen.findByRole('button', { name: 'Preview the digest sent Monday at 09:00' }));
    expect(await screen.findByText('Rendering failed.')).toBeTruthy();
    fail = false;
    await user.click(within(screen.getByTestId('digest-preview')).getByRole('button', { name: 'Retry' }));
    expect((await screen.findByTestId('digest-preview-text')).textContent).toBe('Spend this week: ¥980.00');
    expect(screen.queryByTestId('digest-preview-frame')).toBeNull();
  });
});

describe('reports: downloads', () => {
  it('links the CSV and FOCUS downloads to the range in the URL (end exclusive), and follows a new preset', async () => {
    mockApi({ 'GET /api/v1/me': { body: makeMe() }, ...reportsRoutes(() => []) });
    const user = userEvent.setup();
    renderAppAt('/reports?range=custom&from=2026-03-01&to=2026-03-15');

    const costs = (await screen.findByTestId('download-costs')) as HTMLAnchorElement;
    const focus = screen.getByTestId('download-focus') as HTMLAnchorElement;
    expect(costs.getAttribute('href')).toBe('/api/v1/exports/costs.csv?start=2026-03-01&end=2026-03-16');
    expect(focus.getAttribute('href')).toBe('/api/v1/exports/focus.csv?start=2026-03-01&end=2026-03-16');
    expect(costs.hasAttribute('download')).toBe(true);
    expect(screen.getByText(/FOCUS 1\.2/)).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Last 7 days' }));
    const week = presetRange('7d', todayIn(ACME.timezone));
    const [y, m, d] = week.to.split('-').map(Number) as [number, number, number];
    const end = new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
    await waitFor(() =>
      expect(costs.getAttribute('href')).toBe(`/api/v1/exports/costs.csv?start=${week.from}&end=${end}`),
    );
    expect(window.location.search).toBe('?range=7d');
  });
});

describe('reports: holidays', () => {
  const holidays: Holiday[] = [{ id: 5, date: '2026-10-01', name: 'National Day' }];

  it('lets an owner add a holiday', async () => {
    let list = holidays;
    const server = mockApi({
      'GET /api/v1/me': { body: makeMe() },
      ...reportsRoutes(() => []),
      'GET /api/v1/holidays': () => page(list),
      'POST /api/v1/holidays': (call) => {
        const body = call.body as { date: string; name: string };
        list = [...list, { id: 6, ...body }];
        return { status: 201, body: { id: 6, ...body } };
      },
    });
    const user = userEvent.setup();
    renderAppAt('/reports');
    expect(await screen.findByText('National Day')).toBeTruthy();
    const form = screen.getByRole('form', { name: 'Add a holiday' });
    await user.type(within(form).getByLabelText('Date'), '2027-01-01');
    await user.type(within(form).getByLabelText('Name'), 'New Year');
    await user.click(within(form).getByRole('button', { name: 'Add holiday' }));
    expect(await screen.findByText('New Year')).toBeTruthy();
    expect(server.find('POST', '/api/v1/holidays')[0]!.body).toEqual({ date: '2027-01-01', name: 'New Year' });
  });

  it('shows a viewer the holidays without any control to change them', async () => {
    const viewerOrg = { ...ACME, role: 'viewer' as const };
    mockApi({ 'GET /api/v1/me': { body: makeMe({ organization: viewerOrg, organizations: [viewerOrg] }) }, ...reportsRoutes(() => [], holidays) });
    renderAppAt('/reports');
    const section = (await screen.findByRole('heading', { name: 'Holidays' })).closest('section')!;
    expect(await within(section).findByText('National Day')).toBeTruthy();
    expect(within(section).queryAllByRole('button')).toHaveLength(0);
    expect(within(section).queryByRole('form')).toBeNull();
    expect(within(section).getByText('Only owners and admins can change the holidays.')).toBeTruthy();
  });
});

describe('reports: where the demo keeps its e-mail', () => {
  it('names the folder of caught mail only when the installation catches it', async () => {
    mockApi({ ...reportsRoutes(() => []), 'GET /api/v1/me': { body: makeMe({ caught_mail_dir: '/work/var/mail' }) } });
    renderAppAt('/reports');
    expect((await screen.findByTestId('caught-mail')).textContent).toContain('/work/var/mail');
  });

  it('says nothing of it when e-mail really goes out', async () => {
    mockApi({ ...reportsRoutes(() => []), 'GET /api/v1/me': { body: makeMe() } });
    renderAppAt('/reports');
    await screen.findByRole('heading', { name: 'Reports', level: 1 });
    expect(screen.queryByTestId('caught-mail')).toBeNull();
  });
});
