import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RowEditDelete } from './RowEditDelete';

// Two rows of a list that holds which row is asking to delete, as the settings tabs do.
function Rows({ onEdit, onDelete }: { onEdit: (name: string) => void; onDelete: (name: string) => void }) {
  const [asking, setAsking] = useState<string | null>(null);
  return (
    <table>
      <tbody>
        {['GPU budget', 'Idle rule'].map((name) => (
          <tr key={name}>
            <RowEditDelete
              name={name}
              question="Delete this budget?"
              onEdit={() => onEdit(name)}
              onDelete={() => onDelete(name)}
              confirming={asking === name}
              onConfirmingChange={(c) => setAsking(c ? name : null)}
              busy={false}
            />
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

describe('RowEditDelete', () => {
  it('edits the row it is on, and deletes it only once confirmed', async () => {
    const onEdit = vi.fn();
    const onDelete = vi.fn();
    const user = userEvent.setup();
    render(<Rows onEdit={onEdit} onDelete={onDelete} />);

    await user.click(button('Edit Idle rule'));
    expect(onEdit).toHaveBeenCalledWith('Idle rule');
    expect(button('Edit GPU budget').textContent).toBe('Edit');

    await user.click(button('Delete GPU budget'));
    expect(screen.getByText('Delete this budget?')).toBeTruthy();
    expect(onDelete).not.toHaveBeenCalled();
    // Asking on another row puts the first one back to its buttons.
    await user.click(button('Delete Idle rule'));
    expect(screen.getAllByText('Delete this budget?')).toHaveLength(1);
    expect(button('Delete GPU budget')).toBeTruthy();

    await user.click(button('Yes, delete'));
    expect(onDelete).toHaveBeenCalledTimes(1);
    expect(onDelete).toHaveBeenCalledWith('Idle rule');
  });
});
