import type { Config } from 'jest';

const tsJest = (tsconfig: string | Record<string, unknown>) => ['ts-jest', { tsconfig, diagnostics: false }] as const;

// PGlite's CommonJS build calls import("fs"), which jest refuses outside ESM mode: rewrite those calls.
const pgliteTransform = { '^.+/node_modules/@electric-sql/pglite/dist/.+\\.cjs$': '<rootDir>/scripts/jest/dynamic-import-transform.cjs' };

const config: Config = {
  testTimeout: 30_000,
  projects: [
    {
      displayName: 'server',
      testEnvironment: 'node',
      roots: ['<rootDir>/src', '<rootDir>/scripts'],
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/src/test-support/global-setup.ts',
      globalTeardown: '<rootDir>/src/test-support/global-teardown.ts',
      transform: { '^.+\\.tsx?$': tsJest('<rootDir>/tsconfig.json'), ...pgliteTransform },
      transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/)'],
    },
    {
      displayName: 'web',
      testEnvironment: 'jsdom',
      roots: ['<rootDir>/web/src'],
      testMatch: ['**/*.test.ts', '**/*.test.tsx'],
      setupFilesAfterEnv: ['<rootDir>/web/src/test/setup.ts'],
      moduleNameMapper: { '\\.(css|svg|png)$': '<rootDir>/web/src/test/file-stub.ts', '^@/(.*)$': '<rootDir>/web/src/$1' },
      transform: {
        '^.+\\.tsx?$': tsJest({ jsx: 'react-jsx', module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, isolatedModules: true, target: 'ES2022', baseUrl: '<rootDir>/web/src', paths: { '@/*': ['*'] } }),
      },
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/web/e2e'],
      testMatch: ['**/*.e2e.ts'],
      globalSetup: '<rootDir>/src/test-support/global-setup.ts',
      globalTeardown: '<rootDir>/src/test-support/global-teardown.ts',
      transform: { '^.+\\.tsx?$': tsJest('<rootDir>/tsconfig.json'), ...pgliteTransform },
      transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/)'],
    },
  ],
};

export default config;
