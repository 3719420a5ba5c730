import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { FormField, FormFieldset } from './FormField';

function EmailField({ error, hint }: { error?: string; hint?: string }) {
  const [value, setValue] = useState('');
  return (
    <FormField id="invite-email" label="E-mail" error={error} hint={hint}>
      {(control) => <input {...control} type="email" value={value} onChange={(e) => setValue(e.target.value)} />}
    </FormField>
  );
}

describe('FormField', () => {
  it('associates the label with the control it renders', async () => {
    const user = userEvent.setup();
    render(<EmailField />);

    const input = screen.getByLabelText('E-mail') as HTMLInputElement;
    expect(input.id).toBe('invite-email');
    expect(screen.getByRole('textbox', { name: 'E-mail' })).toBe(input);
    // Clicking the label focuses the control: the association is real, not just an accessible name.
    await user.click(screen.getByText('E-mail'));
    expect(document.activeElement).toBe(input);
  });

  it('is valid and undescribed without an error or a hint', () => {
    render(<EmailField />);

    const input = screen.getByRole('textbox', { name: 'E-mail', description: '' });
    expect(input.hasAttribute('aria-invalid')).toBe(false);
    expect(input.hasAttribute('aria-describedby')).toBe(false);
    expect(document.querySelector('.field-error')).toBeNull();
  });

  it('shows the error and announces it as the invalid control’s description', () => {
    render(<EmailField error="Enter a valid e-mail address." />);

    expect(screen.getByText('Enter a valid e-mail address.')).toBeTruthy();
    const input = screen.getByRole('textbox', { name: 'E-mail', description: 'Enter a valid e-mail address.' });
    expect(input.getAttribute('aria-invalid')).toBe('true');
    // The message is read through the control, not as a second live alert beside the form's banner.
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('describes the control by its hint, then its error', () => {
    const { rerender } = render(<EmailField hint="We send the invitation here." />);
    expect(screen.getByRole('textbox', { description: 'We send the invitation here.' }).hasAttribute('aria-invalid')).toBe(
      false,
    );

    rerender(<EmailField hint="We send the invitation here." error="Already a member." />);
    expect(screen.getByRole('textbox', { description: 'We send the invitation here. Already a member.' })).toBeTruthy();
  });

  it('wires a select the same way', () => {
    render(
      <FormField id="invite-role" label="Role" error="Choose a role.">
        {(control) => (
          <select {...control} defaultValue="viewer">
            <option value="viewer">Viewer</option>
          </select>
        )}
      </FormField>,
    );

    const select = screen.getByRole('combobox', { name: 'Role', description: 'Choose a role.' });
    expect(select.getAttribute('aria-invalid')).toBe('true');
  });
});

describe('FormFieldset', () => {
  it('names the group by its legend and describes it by the hint and the error', () => {
    render(
      <FormFieldset id="regions" legend="Regions" hint="Where your GPUs run." error="Choose at least one region.">
        <label>
          <input type="checkbox" /> Guangzhou
        </label>
      </FormFieldset>,
    );

    const group = screen.getByRole('group', {
      name: 'Regions',
      description: 'Where your GPUs run. Choose at least one region.',
    });
    expect(group.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('checkbox', { name: 'Guangzhou' })).toBeTruthy();
  });
});
