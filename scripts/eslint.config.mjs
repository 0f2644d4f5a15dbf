import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'test-results/**', 'src/db/migrations/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read settings through src/env.ts only.' },
      ],
    },
  },
  {
    // the env reader itself, scripts, test harness and browser code may touch process.env / browser globals
    files: ['src/env.ts', 'scripts/**', 'src/test-support/**', '**/*.test.ts', '**/*.test.tsx', 'web/e2e/**', 'jest.config.ts', 'vite.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  { files: ['web/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['scripts/**/*.{mjs,cjs}'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
