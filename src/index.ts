import cluster from 'node:cluster';
import os from 'node:os';
import { runPrimary, type ReadyMessage } from './cluster';
import { DataDirLockedError } from './db/data-dir-lock';
import { DatabaseOpenError } from './db/client';
import { EnvError, readEnv, type Env } from './env';
import { createLogger, prettyOutput } from './logger';
import { startGatekeeper } from './server';
import { guardProcess } from './process-guards';
import { describeStartupError } from './start-up-errors';
import { planWebProcesses } from './web-processes';

/** Prints one clear line and exits 1: for problems an operator fixes (env, data folder, database). */
function fatal(message: string): never {
  process.stderr.write(`gatekeeper: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let env: Env;
  try {
    env = readEnv();
  } catch (error) {
    if (error instanceof EnvError) fatal(error.message);
    throw error;
  }
  const rootLogger = createLogger({ level: env.LOG_LEVEL, pretty: prettyOutput(process.stdout) });
  guardProcess(rootLogger);

  if (cluster.isPrimary) {
    const plan = planWebProcesses(env, os.availableParallelism());
    if (plan.warning) rootLogger.warn(plan.warning);
    if (plan.count > 1) {
      runPrimary({
        count: plan.count,
        logger: rootLogger,
        print: (text) => process.stdout.write(text),
        exit: (code) => process.exit(code),
      });
      return;
    }
  }
  // a worker's lines say which process wrote them
  const worker = cluster.worker;
  const logger = worker ? rootLogger.child({ worker: worker.id, pid: process.pid }) : rootLogger;

  let handle;
  try {
    handle = await startGatekeeper(env, {
      logger,
      announceSetupCode: (code, file) => {
        // straight to the operator's terminal: a secret must not travel with the log stream; once, not per worker
        if (process.stderr.isTTY && (!worker || worker.id === 1))
          process.stderr.write(`\n  First run: create the owner account at /setup with the setup code  ${code}\n  (also in ${file})\n\n`);
      },
    });
  } catch (error) {
    if (error instanceof DatabaseOpenError || error instanceof DataDirLockedError) fatal(error.message);
    const plain = describeStartupError(error, env);
    if (plain) fatal(plain);
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }

  const mode = env.sandbox ? 'sandbox mode (Discord emulated in-process)' : 'connected to Discord';
  logger.info({ url: handle.url, services: env.SERVICES, mode }, 'Gatekeeper is running');
  if (worker) process.send?.({ type: 'gatekeeper:ready', url: handle.url, mode } satisfies ReadyMessage);
  else if (handle.url) process.stdout.write(`\n  Gatekeeper is running at ${handle.url}  (${mode})\n\n`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    handle
      .stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        // say what could not be closed cleanly: the exit code alone tells the supervisor nothing
        logger.error({ err: error }, 'shutdown did not complete');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
