import { render } from '@testing-library/react';
import { App } from '../App';
import { createQueryClient } from '../data/queryClient';

/**
 * Renders the whole app (BrowserRouter + auth) at a real path, like Django serving index.html there, with
 * a fresh query cache (no answer leaks from one test to the next) and retries off (an error shows at once).
 */
export function renderAppAt(path: string) {
  window.history.replaceState(null, '', path);
  const queryClient = createQueryClient({ retry: false });
  return { queryClient, ...render(<App queryClient={queryClient} />) };
}
