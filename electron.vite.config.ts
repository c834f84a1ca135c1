import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { electronViteEnv } from './tools/setup/electron-release.mjs';

// Electron is not a dependency (tools/setup/electron-release.mjs): electron-vite reads its
// major version (build targets, ESM main) from ELECTRON_MAJOR_VER instead of the package, and
// `electron-vite dev` starts ELECTRON_EXEC_PATH. Set here, from package.json's electronVersion,
// every build gets them: `npm run build`, `npm start`, `npm run dist`, the tests that build.
Object.assign(process.env, electronViteEnv(fileURLToPath(new URL('.', import.meta.url))));

/**
 * `electron-vite dev` only: React's refresh preamble is an inline script and HMR talks over a
 * websocket, both of which the page's strict meta CSP forbids. Builds keep the strict policy.
 */
function devCspPlugin(): Plugin {
  return {
    name: 'first-frame-dev-csp',
    apply: 'serve',
    transformIndexHtml: (html) =>
      html
        .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
        .replace("connect-src 'self'", "connect-src 'self' ws://localhost:* ws://127.0.0.1:*"),
  };
}

/**
 * Rolldown warns when plugins take a large share of a build's time: on a busy machine that is
 * every `npm start`, and nothing the user can act on.
 */
const CHECKS = { bundlerTimings: false };

// Three bundles from the design card's custom roots. Only Electron's declared version is read,
// so this builds with no Electron package or binary on the machine. The main bundle also carries
// the worker threads (`slot-worker.js`, `trace-import-worker.js`, `tokenizer-worker.js`, `template-worker.js`, `gguf-convert-worker.js`, `listing-worker.js`, found next to it at run
// time by threads/spawn-worker.ts) and the provider probe's child process (`provider-probe.js`,
// threads/fork-child.ts). The preload is one
// CommonJS file, the only form a sandboxed preload can load.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        checks: CHECKS,
        input: {
          index: resolve('src-main/host/electron/main.ts'),
          'slot-worker': resolve('src-main/runtime/slot-worker/worker-entry.ts'),
          'trace-import-worker': resolve('src-main/telemetry/trace/import-worker-entry.ts'),
          'tokenizer-worker': resolve('src-main/runtime/tokenize/worker-entry.ts'),
          'template-worker': resolve('src-main/runtime/tokenize/template-worker-entry.ts'),
          'gguf-convert-worker': resolve('src-main/runtime/model/gguf/convert-worker-entry.ts'),
          'listing-worker': resolve('src-main/runtime/model/listing/worker-entry.ts'),
          'provider-probe': resolve('src-main/runtime/slot-worker/probe-entry.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      rollupOptions: {
        checks: CHECKS,
        input: { index: resolve('src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    plugins: [react(), devCspPlugin()],
    build: {
      outDir: resolve('out/renderer'),
      // The headless host serves this bundle over HTTP too: ship it minified.
      minify: true,
      // recharts alone is ~500 kB; the bundle is served from this machine, not a network.
      chunkSizeWarningLimit: 2048,
      rollupOptions: { checks: CHECKS, input: { index: resolve('src-renderer/index.html') } },
    },
  },
});
