import { render } from '@testing-library/react';
import { App } from '../App';

/** Renders the whole app (BrowserRouter + auth) at a real path, like Django serving index.html there. */
export function renderAppAt(path: string) {
  window.history.replaceState(null, '', path);
  return render(<App />);
}
