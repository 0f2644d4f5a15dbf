import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { functionsFolder, migrationsFolder } from '../db/migrate';

/** One id per jest run, set by global setup and inherited by every worker. */
export function testRunId(): string {
  if (!process.env.GK_TEST_RUN_ID) process.env.GK_TEST_RUN_ID = String(process.pid);
  return process.env.GK_TEST_RUN_ID;
}

export function pgliteTemplateFile(): string {
  return path.join(os.tmpdir(), `gatekeeper-pglite-template-${testRunId()}.tar`);
}
export const TEST_DATABASE_PREFIX = 'gk_test_';

/**
 * Named after the content of the migrations and of the function files (with their names),
 * so a changed migration or function gets a fresh template.
 */
export function postgresTemplateName(): string {
  const hash = crypto.createHash('sha256');
  for (const folder of [migrationsFolder(), functionsFolder()]) {
    for (const file of fs
      .readdirSync(folder)
      .filter((f) => f.endsWith('.sql'))
      .sort()) {
      hash.update(`${path.basename(folder)}/${file}\n`);
      hash.update(fs.readFileSync(path.join(folder, file)));
    }
  }
  return `gk_template_${hash.digest('hex').slice(0, 12)}`;
}

export function adminUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}
