/** Sync health in plain words: when data last arrived, and which accounts are failing and why. */
import type { CloudAccount, SyncKind } from '../../api/types';

export interface FailingAccount {
  id: number;
  name: string;
  /** The account's own error, else the first failing sync's. */
  error: string;
  kinds: SyncKind[];
}

export interface SyncHealth {
  accounts: number;
  /** The latest successful sync of any kind on any account (ISO), null if none ever succeeded. */
  lastSuccessAt: string | null;
  failing: FailingAccount[];
  /** Accounts not synced yet (pending) and not failing. */
  pending: number;
}

function latest(a: string | null, b: string | null | undefined): string | null {
  if (!b) return a;
  if (!a) return b;
  return new Date(b).getTime() > new Date(a).getTime() ? b : a;
}

export function syncHealth(accounts: CloudAccount[]): SyncHealth {
  let lastSuccessAt: string | null = null;
  const failing: FailingAccount[] = [];
  let pending = 0;
  for (const account of accounts) {
    if (account.status === 'disabled') continue;
    for (const s of account.sync) lastSuccessAt = latest(lastSuccessAt, s.last_success_at);
    const broken = account.sync.filter((s) => s.last_error);
    if (account.status === 'failing' || broken.length > 0) {
      failing.push({
        id: account.id,
        name: account.name,
        error: account.last_error || broken[0]?.last_error || '',
        kinds: broken.map((s) => s.kind),
      });
    } else if (account.status === 'pending') {
      pending += 1;
    }
  }
  return { accounts: accounts.filter((a) => a.status !== 'disabled').length, lastSuccessAt, failing, pending };
}
