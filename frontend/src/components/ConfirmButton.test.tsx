import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ConfirmButton } from './ConfirmButton';

// The component leaves its confirm step to its parent; this one holds it the way a settings tab does.
function Row({ onConfirm, busy = false }: { onConfirm: () => void; busy?: boolean }) {
  const [confirming, setConfirming] = useState(false);
  return (
    <ConfirmButton
      label="Revoke"
      ariaLabel="Revoke CI"
      question="Revoke?"
      confirmLabel="Yes, revoke"
      confirming={confirming}
      onConfirmingChange={setConfirming}
      onConfirm={onConfirm}
      busy={busy}
    />
  );
}

function button(name: string): HTMLButtonElement {
  return screen.getByRole('button', { name }) as HTMLButtonElement;
}

describe('ConfirmButton', () => {
  it('asks for confirmation when clicked', async () => {
    const onConfirm = vi.fn();
    const user = userEvent.setup();
    render(<Row onConfirm={onConfirm} />);

    expect(button('Revoke CI').textContent).toBe('Revoke');
    expect(screen.queryByRole('button', { name: 'Yes, revoke' })).toBeNull();

    await user.click(button('Revoke CI'));

    expect(screen.getByText('Revoke?')).toBeTruthy();
    expect(button('Yes, revoke').className).toBe('btn btn--small btn--danger');
    expect(button('Cancel').className).toBe('btn btn--small');
    expect(screen.queryByRole('button', { name: 'Revoke CI' })).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('goes back to the button on Cancel without calling onConfirm', async () => {
    const onConfirm = vi.fn();
    const user = userEvent.setup();
    render(<Row onConfirm={onConfirm} />);

    await user.click(button('Revoke CI'));
    await user.click(button('Cancel'));

    expect(button('Revoke CI')).toBeTruthy();
    expect(screen.queryByText('Revoke?')).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('calls onConfirm once when confirmed', async () => {
    const onConfirm = vi.fn();
    const user = userEvent.setup();
    render(<Row onConfirm={onConfirm} />);

    await user.click(button('Revoke CI'));
    await user.click(button('Yes, revoke'));

    expect(onConfirm).toHaveBeenCalledTimes(1);
  });

  it('is disabled while busy, except for Cancel', async () => {
    const onConfirm = vi.fn();
    const user = userEvent.setup();
    const { rerender } = render(<Row onConfirm={onConfirm} busy />);

    expect(button('Revoke CI').disabled).toBe(true);

    rerender(<Row onConfirm={onConfirm} />);
    await user.click(button('Revoke CI'));
    rerender(<Row onConfirm={onConfirm} busy />);

    expect(button('Yes, revoke').disabled).toBe(true);
    expect(button('Cancel').disabled).toBe(false);
    await user.click(button('Yes, revoke'));
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('is named by its text when no aria-label is given', () => {
    render(
      <ConfirmButton
        label="Remove"
        question="Remove zhao@acme.example?"
        confirmLabel="Yes, remove"
        confirming={false}
        onConfirmingChange={vi.fn()}
        onConfirm={vi.fn()}
      />,
    );

    expect(button('Remove').className).toBe('btn btn--small btn--ghost-danger');
    expect(button('Remove').hasAttribute('aria-label')).toBe(false);
  });
});
