// Applies the theme chosen in the top bar before the first paint, so a reload of a dark page does not
// flash light or fall back to the system's theme. A classic script in <head> (it runs before <body> is
// drawn), and a file because the Content-Security-Policy allows no inline script. The key and values are
// those of src/theme.ts (src/theme.test.ts runs this file against it).
(function () {
  try {
    var theme = window.localStorage.getItem('gpu-ledger.theme');
    if (theme === 'light' || theme === 'dark') document.documentElement.setAttribute('data-theme', theme);
  } catch (e) {
    // Storage blocked (private mode, policy): the system's theme.
  }
})();
