/** Per-kind progress of a cloud account's sync (instances, prices, metrics, bills), from its sync status. */
import type { CloudAccount, SyncKind, SyncStatus } from '../api/types';
import { SYNC_KINDS } from '../api/cloudChoices';

/** What each kind reads, as the first-run page names it. */
export const PROGRESS_LABELS: Record<SyncKind, string> = {
  inventory: 'Instances',
  prices: 'Prices',
  metrics: 'GPU metrics (days of history)',
  bills: 'Bill months',
  balance: 'Account balance',
};

/** What a kind counts its progress in (metrics: GetMonitorData requests; bills: months). */
const PROGRESS_UNITS: Partial<Record<SyncKind, string>> = { bills: 'months' };

export type KindPhase = 'waiting' | 'running' | 'retrying' | 'done' | 'failed';

export function kindPhase(status: SyncStatus): KindPhase {
  const run = status.progress;
  if (run) return run.state;
  return status.last_success_at ? 'done' : 'waiting';
}

/** Every kind has run to the end at least once (successfully): the backfill is complete. */
export function backfillDone(account: CloudAccount): boolean {
  return account.sync.length > 0 && account.sync.every((s) => kindPhase(s) === 'done');
}

function percent(done: number, planned: number): number {
  return planned > 0 ? Math.min(100, Math.round((done / planned) * 100)) : 100;
}

function KindRow({ status }: { status: SyncStatus }) {
  const phase = kindPhase(status);
  const run = status.progress;
  const label = PROGRESS_LABELS[status.kind] ?? status.kind;
  const determinate = run?.planned !== null && run?.planned !== undefined;
  let detail: string;
  if (phase === 'waiting') detail = 'Waiting to start';
  else if (phase === 'running')
    detail = determinate
      ? `${percent(run!.done, run!.planned!)}% (${run!.done} of ${run!.planned} ${PROGRESS_UNITS[status.kind] ?? 'requests'})`
      : 'Reading…';
  else if (phase === 'retrying') detail = `${run?.summary || 'Tencent Cloud is busy.'} Trying again shortly.`;
  else if (phase === 'failed') detail = run?.summary || status.last_error || 'Failed';
  else detail = run?.summary || 'Done';

  return (
    <li className={`sync-progress__row sync-progress__row--${phase}`} data-testid={`progress-${status.kind}`} data-phase={phase}>
      <div className="sync-progress__label">
        <span>{label}</span>
        <span className={phase === 'failed' ? 'text-danger' : 'muted'}>{detail}</span>
      </div>
      {(phase === 'running' && !determinate) || phase === 'retrying' ? (
        // No value: an indeterminate bar, since this kind does not report how much is left.
        <progress aria-label={`${label}: reading`} />
      ) : (
        <progress
          aria-label={`${label}: ${phase}`}
          max={100}
          value={phase === 'done' ? 100 : phase === 'running' ? percent(run!.done, run!.planned!) : 0}
        />
      )}
    </li>
  );
}

export function SyncProgress({ account }: { account: CloudAccount }) {
  const byKind = [...account.sync].sort((a, b) => SYNC_KINDS.indexOf(a.kind) - SYNC_KINDS.indexOf(b.kind));
  if (byKind.length === 0) return <p className="muted">No sync has been scheduled yet.</p>;
  return (
    <ul className="sync-progress" aria-label={`Progress of ${account.name}`}>
      {byKind.map((status) => (
        <KindRow key={status.kind} status={status} />
      ))}
    </ul>
  );
}
