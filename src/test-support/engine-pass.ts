import type { EngineKind } from '../db/client';

/**
 * Integration tests run in two jest projects, one per database engine, so that the PGlite half and
 * the PostgreSQL half of a file run on different jest workers at the same time:
 *
 * - `integration` (global `GK_TEST_ENGINE` = 'pglite') runs every integration file's PGlite parts,
 *   and the files that touch no database server at all;
 * - `integration-postgres` (`GK_TEST_ENGINE` = 'postgres', selected only when TEST_DATABASE_URL is
 *   set) runs the PostgreSQL parts of the files that have some (scripts/jest/engine-projects.cjs).
 *
 * Outside those projects (no global set) a file runs PGlite, and PostgreSQL too when
 * TEST_DATABASE_URL is set.
 */
type Pass = EngineKind | 'both';

function currentPass(): Pass {
  const pass = (globalThis as { GK_TEST_ENGINE?: unknown }).GK_TEST_ENGINE;
  return pass === 'pglite' || pass === 'postgres' ? pass : 'both';
}

/** The PostgreSQL server's URL when this pass runs PostgreSQL parts, else undefined. */
export function postgresTestUrl(): string | undefined {
  const url = process.env.TEST_DATABASE_URL;
  return url && currentPass() !== 'pglite' ? url : undefined;
}

/** The engines this pass runs: what `describeEngines` loops over. */
export function testEngines(): EngineKind[] {
  const pass = currentPass();
  const engines: EngineKind[] = pass === 'postgres' ? [] : ['pglite'];
  if (postgresTestUrl()) engines.push('postgres');
  return engines;
}

/** `describe` when this pass runs the engine's parts, `describe.skip` otherwise. */
export function describeOn(engine: EngineKind): jest.Describe {
  return testEngines().includes(engine) ? describe : describe.skip;
}

/** `it` when this pass runs the engine's parts, `it.skip` otherwise. */
export function itOn(engine: EngineKind): jest.It {
  return testEngines().includes(engine) ? it : it.skip;
}

// Which files the `integration-postgres` project runs is read from their source by
// scripts/jest/engine-projects.cjs: a file that calls describeEngines, testEngines, describeOn,
// itOn or postgresTestUrl has PostgreSQL parts.
