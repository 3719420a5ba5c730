import { useTranslation } from 'react-i18next';
import { useMe } from '../auth/AuthContext';

/** In the demo, e-mail never leaves the machine: say where to read what was "sent". */
export function CaughtMailNote() {
  const { t } = useTranslation();
  const dir = useMe().caught_mail_dir;
  if (!dir) return null;
  return (
    <p className="alert alert--info" role="note" data-testid="caught-mail">
      {t('caughtMail.note', { dir })}
    </p>
  );
}
