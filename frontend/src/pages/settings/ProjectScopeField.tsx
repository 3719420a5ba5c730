import type { Project } from '../../api/types';
import { FormField } from '../../components/FormField';

/**
 * What a budget, an alert rule or an alert recipient covers: the whole organization (the empty value, named by `everythingLabel`)
 * or one project (its id as a string).
 */
export function ProjectScopeField({
  id,
  label,
  everythingLabel,
  projects,
  value,
  onChange,
  error,
}: {
  id: string;
  label: string;
  everythingLabel: string;
  projects: Project[];
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  return (
    <FormField id={id} label={label} error={error}>
      {(control) => (
        <select {...control} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{everythingLabel}</option>
          {projects.map((p) => (
            <option key={p.id} value={String(p.id)}>
              {p.name}
            </option>
          ))}
        </select>
      )}
    </FormField>
  );
}
