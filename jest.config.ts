import type { Config } from 'jest';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS helper jest's config loader can run as is
const { preactModuleNameMapper } = require('./scripts/jest/preact-commonjs.cjs') as {
  preactModuleNameMapper: (rootDir: string) => Record<string, string>;
};

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS helper jest's config loader can run as is
const { pgliteOnlyFiles } = require('./scripts/jest/engine-projects.cjs') as {
  pgliteOnlyFiles: (rootDir: string, roots: string[]) => string[];
};

const tsJest = (tsconfig: string | Record<string, unknown>) => ['ts-jest', { tsconfig, diagnostics: false }] as const;
/** The server's TypeScript, transpiled by esbuild (scripts/jest/esbuild-transform.cjs says why). */
const esbuildTs = '<rootDir>/scripts/jest/esbuild-transform.cjs';

// PGlite's CommonJS build calls import("fs"), which jest refuses outside ESM mode: rewrite those calls.
const pgliteTransform = { '^.+/node_modules/@electric-sql/pglite/dist/.+\\.cjs$': '<rootDir>/scripts/jest/dynamic-import-transform.cjs' };

/**
 * The production build runs the dashboard on Preact's React compatibility layer (vite.config.ts
 * aliases react and react-dom the same way): the web tests render on what ships.
 */
const preactForReact = preactModuleNameMapper(__dirname);

/** Fails a test whose product code sent the Discord emulator a request Discord's OpenAPI description does not allow. */
const openapiGuard = '<rootDir>/src/test-support/openapi-guard.ts';

/** Files that need a database (*.int.test.ts) or start the product (*.process.test.ts), on one engine. */
function integrationProject(displayName: string, engine: 'pglite' | 'postgres', skipFiles: string[]) {
  return {
    displayName,
    // jest's node environment with a pool of migrated PGlite databases kept across a worker's files
    testEnvironment: '<rootDir>/scripts/jest/pglite-pool-environment.cjs',
    roots: ['<rootDir>/src', '<rootDir>/scripts'],
    testMatch: ['**/*.int.test.ts', '**/*.process.test.ts'],
    testPathIgnorePatterns: ['/node_modules/', ...skipFiles],
    globals: { GK_TEST_ENGINE: engine },
    setupFilesAfterEnv: [openapiGuard],
    globalSetup: '<rootDir>/src/test-support/global-setup.ts',
    globalTeardown: '<rootDir>/src/test-support/global-teardown.ts',
    transform: { '^.+\\.tsx?$': esbuildTs, ...pgliteTransform },
    transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/)'],
  };
}

const config: Config = {
  testTimeout: 30_000,
  // How long a worker may take to end once told to. Jest's 500 ms is less than a process that held
  // PGlite needs: every worker reaches its 'exit' event within 30 ms with nothing left open (the
  // stdio pipes only), but the process is gone only 0.4-0.65 s later (a forked child with one
  // in-memory PGlite, measured from the parent; 12 ms without PGlite), so jest killed it and
  // printed "A worker process has failed to exit gracefully". A worker truly stuck still ends
  // after this.
  workerGracefulExitTimeout: 5_000,
  testSequencer: '<rootDir>/scripts/jest/slow-first-sequencer.cjs',
  projects: [
    // Server code that needs no database: no migrated template is built for these, so a run of
    // pure rules takes the time of the rules. A test that needs a database is named *.int.test.ts
    // (or *.process.test.ts when it starts the product as child processes).
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/src', '<rootDir>/scripts'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.test\\.ts$', '\\.process\\.test\\.ts$'],
      setupFilesAfterEnv: [openapiGuard],
      transform: { '^.+\\.tsx?$': esbuildTs },
    },
    // Integration tests run once per database engine, as two projects, so that a file's PGlite half and
    // its PostgreSQL half run on different workers at the same time (src/test-support/engine-pass.ts).
    // scripts/test.mjs selects `integration-postgres` when a server answers.
    integrationProject('integration', 'pglite', []),
    integrationProject('integration-postgres', 'postgres', pgliteOnlyFiles(__dirname, ['src', 'scripts'])),
    {
      displayName: 'web',
      testEnvironment: 'jsdom',
      roots: ['<rootDir>/web/src'],
      testMatch: ['**/*.test.ts', '**/*.test.tsx'],
      setupFilesAfterEnv: ['<rootDir>/web/src/test/setup.ts'],
      moduleNameMapper: {
        '\\.(css|svg|png)$': '<rootDir>/web/src/test/file-stub.ts',
        '^@/(.*)$': '<rootDir>/web/src/$1',
        '^@shared/(.*)$': '<rootDir>/src/shared/$1',
        ...preactForReact,
      },
      transform: {
        '^.+\\.tsx?$': tsJest({
          jsx: 'react-jsx',
          module: 'commonjs',
          moduleResolution: 'node10',
          esModuleInterop: true,
          isolatedModules: true,
          target: 'ES2022',
          baseUrl: '<rootDir>/web/src',
          paths: { '@/*': ['*'], '@shared/*': ['../../src/shared/*'] },
        }),
      },
    },
    {
      displayName: 'e2e',
      // the integration projects' environment: a file after the first on a worker takes an emptied PGlite from
      // the pool instead of opening one from the template (~1.2 CPU-seconds each of the thirteen files)
      testEnvironment: '<rootDir>/scripts/jest/pglite-pool-environment.cjs',
      roots: ['<rootDir>/web/e2e'],
      testMatch: ['**/*.e2e.ts'],
      globalSetup: '<rootDir>/src/test-support/global-setup.ts',
      globalTeardown: '<rootDir>/src/test-support/global-teardown.ts',
      transform: { '^.+\\.tsx?$': esbuildTs, ...pgliteTransform },
      transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/)'],
    },
  ],
};

export default config;
