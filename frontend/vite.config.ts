/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Django serves dist/ through whitenoise under /static/ and returns dist/index.html for
// every non-API path, so assets are referenced as /static/assets/... in the built index.html.
const backend = 'http://127.0.0.1:8000';
const proxied = ['/api', '/admin', '/static/rest_framework', '/static/admin', '/healthz', '/readyz'];

export default defineConfig(({ command }) => ({
  // Production build: assets under /static/ (whitenoise). Dev server: the app at /, like Django serves it,
  // so /login, /projects, ... work directly and /static/admin, /static/rest_framework go to the proxy.
  base: command === 'build' ? '/static/' : '/',
  plugins: [react()],
  server: {
    port: 5173,
    proxy: Object.fromEntries(proxied.map((path) => [path, { target: backend, changeOrigin: false }])),
  },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 900,
  },
  test: {
    environment: 'happy-dom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    pool: 'threads',
    maxWorkers: 2,
    // The form tests type whole sign-up forms key by key; on a busy shared CI machine that alone can pass
    // vitest's 5 s default, which says nothing about the app.
    testTimeout: 15_000,
  },
}));
