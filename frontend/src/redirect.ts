/**
 * Where to go after signing in: only a path of this site (`/...`), never another origin.
 * Rejects `//host`, `/\host`, absolute URLs and anything the URL parser resolves elsewhere
 * (e.g. tabs or newlines hidden in the path); /login itself is not a destination.
 */
export function safeRedirect(target: unknown): string | null {
  if (typeof target !== 'string' || !target.startsWith('/') || /^\/[/\\]/.test(target)) return null;
  const origin = window.location.origin;
  let url: URL;
  try {
    url = new URL(target, origin);
  } catch {
    return null;
  }
  if (url.origin !== origin || url.pathname === '/login') return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
