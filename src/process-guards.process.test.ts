import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { sourceEntryArgs } from '../scripts/bench/product-process';

const root = path.resolve(__dirname, '..');
const guards = path.join(root, 'src/process-guards.ts');
const logger = path.join(root, 'src/logger.ts');

/** Runs a few lines of TypeScript in a process guarded as the product's is (tsx, as the product's source entry). */
function runGuarded(body: string) {
  const script = `
    const { guardProcess } = require(${JSON.stringify(guards)});
    const { createLogger } = require(${JSON.stringify(logger)});
    guardProcess(createLogger({ level: 'info' }));
    ${body}
  `;
  const [, , loader] = sourceEntryArgs(root);
  return spawnSync(process.execPath, ['--import', loader!, '-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 });
}

function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the process guards', () => {
  it('a promise that fails with nobody waiting is logged with its stack, and the process keeps running', () => {
    const result = runGuarded(`
      void Promise.reject(new Error('lost connection, nobody caught me'));
      setTimeout(() => { process.stdout.write('still serving\\n'); process.exit(0); }, 200);
    `);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('still serving');
    const [line] = logLines(result.stdout);
    expect(line).toMatchObject({ level: 50, msg: 'unhandled promise rejection (a bug): logged, the process keeps serving' });
    expect((line!.err as { message: string; stack: string }).message).toBe('lost connection, nobody caught me');
    expect((line!.err as { stack: string }).stack).toContain('Error: lost connection');
  });

  it('an uncaught exception is logged at fatal level and the process still exits 1', () => {
    const result = runGuarded(`
      setTimeout(() => { throw new Error('state is half changed'); }, 10);
      setTimeout(() => { process.stdout.write('should never print\\n'); }, 500);
    `);
    expect(result.status).toBe(1);
    expect(result.stdout).not.toContain('should never print');
    const [line] = logLines(result.stdout);
    expect(line).toMatchObject({ level: 60, msg: 'uncaught exception: the process exits', origin: 'uncaughtException' });
    expect((line!.err as { message: string }).message).toBe('state is half changed');
  });
});
