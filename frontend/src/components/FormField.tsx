import type { ReactNode } from 'react';

/** What the control inside a field must spread onto itself so the label, help and error reach assistive tech. */
export interface FieldControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

interface FieldTextProps {
  /** Help text under the control, read out as part of the control's description. */
  hint?: ReactNode;
  /** The field's error message (usually `ApiError.field(name)`); absent or empty means valid. */
  error?: string;
}

export const fieldErrorId = (id: string) => `${id}-error`;
export const fieldHintId = (id: string) => `${id}-hint`;

/**
 * The control's aria attributes: invalid only while there is an error, and described by the help and the
 * error (in that order, as they are shown) so a screen reader reads the error when the control is focused.
 */
export function fieldControlProps(id: string, { hint, error }: FieldTextProps): FieldControlProps {
  const describedBy = [hint ? fieldHintId(id) : null, error ? fieldErrorId(id) : null].filter(Boolean).join(' ');
  return { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy || undefined };
}

function FieldHint({ id, hint }: { id: string; hint?: ReactNode }) {
  if (!hint) return null;
  return (
    <p className="muted field-hint" id={fieldHintId(id)}>
      {hint}
    </p>
  );
}

function FieldErrorText({ id, error }: { id: string; error?: string }) {
  if (!error) return null;
  // Not role="alert": the form's banner announces the failure once; each field's message is read through
  // aria-describedby when the user reaches the field, instead of every message interrupting at once.
  return (
    <div className="field-error" id={fieldErrorId(id)}>
      {error}
    </div>
  );
}

/**
 * One labelled form control with its help text and error message.
 *
 * The control is rendered by `children`, which receives the props to spread on it (`id`, `aria-invalid`,
 * `aria-describedby`), so the same wiring serves an input, a select or a textarea.
 */
export function FormField({
  id,
  label,
  hint,
  error,
  className,
  children,
}: FieldTextProps & {
  id: string;
  label: ReactNode;
  /** Extra classes beside `field` (e.g. `field--grow`). */
  className?: string;
  children: (control: FieldControlProps) => ReactNode;
}) {
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children(fieldControlProps(id, { hint, error }))}
      <FieldHint id={id} hint={hint} />
      <FieldErrorText id={id} error={error} />
    </div>
  );
}

/**
 * A group of controls answering one question (check boxes, radio buttons), named by its legend. The group
 * carries the invalid state and the description, since no single control inside it owns the error.
 */
export function FormFieldset({
  id,
  legend,
  hint,
  error,
  className,
  children,
}: FieldTextProps & { id: string; legend: ReactNode; className?: string; children: ReactNode }) {
  const { 'aria-invalid': invalid, 'aria-describedby': describedBy } = fieldControlProps(id, { hint, error });
  return (
    <fieldset
      id={id}
      className={className ? `field ${className}` : 'field'}
      aria-invalid={invalid}
      aria-describedby={describedBy}
    >
      <legend>{legend}</legend>
      <FieldHint id={id} hint={hint} />
      {children}
      <FieldErrorText id={id} error={error} />
    </fieldset>
  );
}
