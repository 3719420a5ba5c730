import { describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { ApiError } from './api/client';
import { useRowAction } from './hooks';

/** A promise the test settles by hand, to look at the state while an action is in flight. */
function deferred() {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('useRowAction', () => {
  it('marks the row busy while the action runs, then shows the notice and reloads the list', async () => {
    const reload = vi.fn();
    const { result } = renderHook(() => useRowAction(reload));
    const pending = deferred();

    let running!: Promise<void>;
    act(() => {
      running = result.current.run(3, () => pending.promise, 'Key revoked.');
    });
    expect(result.current.busyId).toBe(3);
    expect(result.current.notice).toBeNull();
    expect(reload).not.toHaveBeenCalled();

    await act(async () => {
      pending.resolve();
      await running;
    });
    expect(result.current.busyId).toBeNull();
    expect(result.current.notice).toBe('Key revoked.');
    expect(result.current.error).toBeNull();
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('shows the error of a failing action, clears the busy row and does not reload', async () => {
    const reload = vi.fn();
    const { result } = renderHook(() => useRowAction(reload));

    await act(() =>
      result.current.run(
        5,
        () => Promise.reject(new ApiError(409, 'conflict', 'The last owner cannot be removed.')),
        'Removed.',
      ),
    );

    expect(result.current.error).toBe('The last owner cannot be removed.');
    expect(result.current.busyId).toBeNull();
    expect(result.current.notice).toBeNull();
    expect(reload).not.toHaveBeenCalled();
  });

  it('clears the previous error and notice when the next action starts', async () => {
    const { result } = renderHook(() => useRowAction(vi.fn()));
    await act(() => result.current.run(1, () => Promise.reject(new Error('Network down')), 'Done.'));
    act(() => result.current.setNotice('Invitation sent.'));
    expect(result.current.error).toBe('Network down');
    expect(result.current.notice).toBe('Invitation sent.');

    act(() => {
      void result.current.run(2, () => new Promise(() => {}), 'Done.');
    });
    expect(result.current.error).toBeNull();
    expect(result.current.notice).toBeNull();
    expect(result.current.busyId).toBe(2);
  });

  it('leaves the list alone when the action updated its row in place', async () => {
    const reload = vi.fn();
    const { result } = renderHook(() => useRowAction(reload));

    await act(() => result.current.run(2, () => Promise.resolve(), 'Role changed.', { reload: false }));

    expect(result.current.notice).toBe('Role changed.');
    expect(reload).not.toHaveBeenCalled();
  });
});
