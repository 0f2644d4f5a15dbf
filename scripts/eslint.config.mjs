import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import noCycle from './eslint-rules/no-cycle.mjs';
import moduleEntry from './eslint-rules/module-entry.mjs';
import standaloneModule from './eslint-rules/standalone-module.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'test-results/**', 'src/db/migrations/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // one import line per module: a type goes inline (`import { x, type Y } from`), and a re-export of something
      // the file also imports is exported by name instead of naming the module a second time
      'no-duplicate-imports': ['error', { includeExports: true }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read settings through src/env.ts only.' },
      ],
    },
  },
  {
    // the env reader itself, scripts, test harness and browser code may touch process.env / browser globals
    files: [
      'src/env.ts',
      'scripts/**',
      'src/test-support/**',
      '**/*.test.ts',
      '**/*.test.tsx',
      'web/e2e/**',
      'jest.config.ts',
      'vite.config.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  { files: ['web/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  {
    // module boundaries: no import cycles, no relative path climbing more than two levels,
    // and a module under src/modules/<name>/ is entered from outside only through its index.ts
    files: ['src/**/*.{ts,tsx}', 'web/**/*.{ts,tsx}', 'scripts/**/*.ts'],
    plugins: { gatekeeper: { rules: { 'no-cycle': noCycle, 'module-entry': moduleEntry, 'standalone-module': standaloneModule } } },
    rules: {
      'gatekeeper/no-cycle': 'error',
      // the Discord emulator is a product of its own: entered only through its index, and it imports nothing of ours
      'gatekeeper/standalone-module': ['error', { dir: 'src/discord-emulator' }],
      'gatekeeper/module-entry': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.\\./){3,}', message: 'Climb at most two levels; use a path alias (@shared/*, @/*) or move the code closer.' },
          ],
        },
      ],
    },
  },
  { files: ['scripts/**/*.{mjs,cjs}'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
