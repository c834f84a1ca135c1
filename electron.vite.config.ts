import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// Three bundles from the design card's custom roots. Only the `electron` package's version is
// read, so this builds with no Electron binary on the machine. The main bundle also carries
// the slot worker (`engine-worker.js`, found next to it at run time). The preload is one
// CommonJS file, the only form a sandboxed preload can load.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve('src-main/host/electron/main.ts'),
          'engine-worker': resolve('src-main/runtime/engine/worker-entry.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      // The headless host serves this bundle over HTTP too: ship it minified.
      minify: true,
      // recharts alone is ~500 kB; the bundle is served from this machine, not a network.
      chunkSizeWarningLimit: 2048,
      rollupOptions: { input: { index: resolve('src-renderer/index.html') } },
    },
  },
});
