// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Electron may only be imported by the Electron host and the preload: the core
// (runtime, telemetry, history, service), the CLIs and the renderer must run
// without it, under the headless host and in tests.
const noElectron = {
  'no-restricted-imports': [
    'error',
    {
      paths: [
        { name: 'electron', message: 'Only src-main/host/electron and src-preload may import electron.' },
      ],
      patterns: [
        {
          group: ['electron/*'],
          message: 'Only src-main/host/electron and src-preload may import electron.',
        },
      ],
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'dist/**',
      'release/**',
      'node_modules/**',
      'native/build/**',
      '.cache/**',
      'test-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      ...noElectron,
    },
  },
  // What a command, the HTTP host or the history room prints may hold anyone's text (a run name from
  // an imported trace, a request's path): it goes through src-main/printable.ts, which escapes
  // control characters, never straight to the console.
  {
    files: ['src-main/cli/**', 'bench/**', 'src-main/host/http/**', 'src-main/history/**'],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[object.object.name='process'][object.property.name=/^std(out|err)$/][property.name='write']",
          message: 'print through src-main/printable.ts',
        },
      ],
    },
  },
  // Renderer views hold no server state: the stores (src-renderer/store/) call the Bridge and
  // keep what it answers, testable without React; a view subscribes and calls their actions.
  {
    files: ['src-renderer/views/**', 'src-renderer/components/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "Identifier[name='bridge']", message: 'call the service through a store action' },
        {
          selector: 'ImportDeclaration[source.value=/\\/bridge\\//]',
          message: 'only the stores use the Bridge',
        },
      ],
    },
  },
  {
    files: [
      'src-main/host/electron/**',
      'src-preload/**',
      'electron.vite.config.ts',
      'test/unit/host/electron/**',
    ],
    rules: { 'no-restricted-imports': 'off' },
  },
);
