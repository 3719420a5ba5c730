import { afterEach, describe, expect, it } from 'vitest';
import type { AutomationAction } from '../../api/types';
import { i18n, UI_LANGUAGES } from '../../i18n';
import {
  ACTION_REASONS,
  ACTION_STATUSES,
  actionKindLabel,
  actionReasonText,
  actionStatusLabel,
  addSkipDate,
  historyTimes,
  isAutomatable,
  needsMemoryConfirmation,
  nextActionRows,
  personName,
  planStatusLabel,
  removeSkipDate,
  UNAVAILABLE_REASONS,
  unavailableLink,
  unavailableText,
  weekRows,
} from './automation';

afterEach(async () => {
  await i18n.changeLanguage('en');
});

const TZ = 'Asia/Shanghai';

describe('which recommendations offer "Run it for me"', () => {
  it('is the stopping kinds only, and asks for the memory confirmation on an idle one holding GPU memory', () => {
    expect(['stop_idle', 'idle_held', 'schedule', 'night_downshift'].every(isAutomatable)).toBe(true);
    expect(['subscription', 'spot', 'downsize', 'upsize', 'thermal', 'data_pipeline'].some(isAutomatable)).toBe(false);
    expect(needsMemoryConfirmation('idle_held')).toBe(true);
    expect(needsMemoryConfirmation('stop_idle')).toBe(false);
    expect(needsMemoryConfirmation('schedule')).toBe(false);
  });
});

describe('the next actions', () => {
  const actions = [
    { at: '2026-10-28T01:00:00Z', kind: 'start' as const, instance_id: 4, instance_name: 'night-t4-01' },
    { at: '2026-10-27T11:00:00Z', kind: 'stop' as const, instance_id: 4, instance_name: 'night-t4-01' },
    { at: '2026-10-28T11:00:00Z', kind: 'stop' as const, instance_id: 5, instance_name: '' },
  ];

  it('are in time order, each at its time in the organization\'s timezone with the weekday', () => {
    const rows = nextActionRows(actions, TZ, 'en-GB');
    // 11:00 UTC is 19:00 in Shanghai; 01:00 UTC the next day 09:00.
    expect(rows.map((r) => [r.when, r.kindLabel, r.instance])).toEqual([
      ['Tue, 27 Oct 2026, 19:00', 'Stop', 'night-t4-01'],
      ['Wed, 28 Oct 2026, 09:00', 'Start', 'night-t4-01'],
      ['Wed, 28 Oct 2026, 19:00', 'Stop', '5'],
    ]);
    expect(rows.map((r) => r.kind)).toEqual(['stop', 'start', 'stop']);
    expect(new Set(rows.map((r) => r.key)).size).toBe(3);
  });

  it('follow the timezone, not the browser: the same moment is another day in UTC', () => {
    expect(nextActionRows([actions[0]!], 'America/Los_Angeles', 'en-GB')[0]!.when).toBe('Tue, 27 Oct 2026, 18:00');
  });

  it('are worded in Chinese: the weekday and stop/start', async () => {
    await i18n.changeLanguage('zh-CN');
    const rows = nextActionRows(actions, TZ, 'zh-CN');
    expect(rows[0]!.kindLabel).toBe('关机');
    expect(rows[1]!.kindLabel).toBe('开机');
    expect(rows[0]!.when).toContain('周二');
    expect(rows[0]!.when).toContain('19:00');
  });
});

describe('why it cannot run', () => {
  it('has its own sentence for every code the API sends, in both languages, and none shows the code', () => {
    for (const lng of UI_LANGUAGES) {
      for (const reason of UNAVAILABLE_REASONS) {
        expect(i18n.exists(`automation.unavailable.${reason}`, { lng, fallbackLng: false }), `${lng} ${reason}`).toBe(true);
      }
    }
    const sentences = UNAVAILABLE_REASONS.map((reason) => unavailableText(reason));
    expect(new Set(sentences).size).toBe(UNAVAILABLE_REASONS.length);
    for (const [i, sentence] of sentences.entries()) expect(sentence).not.toContain(UNAVAILABLE_REASONS[i]);
    expect(unavailableText('read_only_credential')).toMatch(/read-only credential/);
  });

  it('says a code it does not know with the server\'s words, else a general sentence', () => {
    expect(unavailableText('something_new', 'The server says why.')).toBe('The server says why.');
    expect(unavailableText('something_new', null)).toBe('GPU Ledger cannot carry this out right now.');
  });

  it('is in Chinese in the Chinese dashboard', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(unavailableText('not_accepted')).toBe('请先采纳这条建议，之后 GPU Ledger 才能替您执行。');
    expect(unavailableText('automation_paused')).toContain('暂停');
  });

  it('links to where it is fixed', () => {
    expect(unavailableLink('read_only_credential')).toBe('cloud-accounts');
    expect(unavailableLink('automation_disabled')).toBe('cloud-accounts');
    expect(unavailableLink('automation_paused')).toBe('automation-settings');
    expect(unavailableLink('not_accepted')).toBeNull();
  });
});

describe('the history of actions', () => {
  const action: AutomationAction = {
    id: 1,
    plan: 2,
    recommendation: 11,
    instance: 4,
    instance_name: 'night-t4-01',
    instance_provider_id: 'ins-night01',
    kind: 'stop',
    due_at: '2026-10-27T11:00:00Z',
    status: 'skipped',
    attempts: 1,
    next_attempt_at: '2026-10-27T11:00:00Z',
    request_id: '',
    reason: 'busy_gpu_util',
    reason_params: {},
    reason_text: 'The GPU was busy (utilization above the threshold): not stopped.',
    sent_at: null,
    finished_at: '2026-10-27T11:01:00Z',
  };

  it('words every status and reason code in both languages', () => {
    for (const lng of UI_LANGUAGES) {
      for (const key of [
        ...ACTION_STATUSES.map((s) => `automation.actionStatus.${s}`),
        ...ACTION_REASONS.map((r) => `automation.reason.${r}`),
        'automation.kind.stop',
        'automation.kind.start',
        'automation.status.active',
        'automation.status.paused',
        'automation.status.ended',
      ]) {
        expect(i18n.exists(key, { lng, fallbackLng: false }), `${lng} ${key}`).toBe(true);
      }
    }
  });

  it('shows the reason per code in the reader\'s language, an unknown one in the server\'s words, none as nothing', async () => {
    expect(actionReasonText(action)).toBe('The GPU was busy, so it was not stopped.');
    expect(actionReasonText({ reason: 'brand_new' as AutomationAction['reason'], reason_text: 'Server words.' })).toBe('Server words.');
    expect(actionReasonText({ reason: '', reason_text: '' })).toBe('');
    await i18n.changeLanguage('zh-CN');
    expect(actionReasonText(action)).toBe('GPU 正忙，因此没有关机。');
    expect(actionStatusLabel('skipped')).toBe('已跳过');
    expect(actionKindLabel('stop')).toBe('关机');
    expect(planStatusLabel('paused')).toBe('已暂停');
  });

  it('shows when it was due and when it finished, in the organization\'s timezone', () => {
    expect(historyTimes(action, TZ, 'en-GB')).toEqual({ due: '27 Oct 2026, 19:00', done: '27 Oct 2026, 19:01' });
    expect(historyTimes({ ...action, finished_at: null, sent_at: null }, TZ, 'en-GB').done).toBe('—');
  });

  it('names who turned it on by name, else by e-mail', () => {
    expect(personName({ id: 1, email: 'lin@acme.example', name: 'Lin Wei' })).toBe('Lin Wei');
    expect(personName({ id: 1, email: 'lin@acme.example', name: '' })).toBe('lin@acme.example');
    expect(personName(null)).toBeNull();
  });
});

describe('the weeks: realised against promised', () => {
  const weeks = [
    { week_start: '2026-10-26', promised: '287.50', realised: '301.2', currency: 'CNY', stopped_hours: 70 },
    { week_start: '2026-10-19', promised: '287.50', realised: null, currency: 'CNY', stopped_hours: 0 },
  ];

  it('are oldest first, the money in the reader\'s format, a missing figure as a dash', async () => {
    expect(weekRows(weeks, 'en-GB').map((w) => [w.week, w.promised, w.realised, w.stoppedHours])).toEqual([
      ['Week of Mon, 19 Oct 2026', '¥287.50', '—', '0'],
      ['Week of Mon, 26 Oct 2026', '¥287.50', '¥301.20', '70'],
    ]);
    await i18n.changeLanguage('zh-CN');
    const zh = weekRows(weeks, 'zh-CN');
    expect(zh[1]!.realised).toBe('¥301.20');
    expect(zh[1]!.week).toContain('这一周');
    expect(zh[1]!.week).toContain('2026年10月26日');
  });
});

describe('skip dates', () => {
  it('adds a day in order and once, refuses a day gone or no day at all, and removes one', () => {
    expect(addSkipDate(['2026-12-31'], '2026-12-25', '2026-10-27')).toEqual(['2026-12-25', '2026-12-31']);
    expect(addSkipDate(['2026-12-25'], '2026-12-25', '2026-10-27')).toEqual(['2026-12-25']);
    expect(addSkipDate([], '2026-10-27', '2026-10-27')).toEqual(['2026-10-27']);
    expect(addSkipDate([], '2026-10-26', '2026-10-27')).toBeNull();
    expect(addSkipDate([], '2026-02-30', '2026-01-01')).toBeNull();
    expect(addSkipDate([], '', '2026-01-01')).toBeNull();
    expect(removeSkipDate(['2026-12-25', '2026-12-31'], '2026-12-25')).toEqual(['2026-12-31']);
  });
});
