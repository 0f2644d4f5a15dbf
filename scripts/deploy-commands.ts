import { deployCommands } from '../src/discord/commands/deploy-commands';
import { readEnv } from '../src/env';

/** `npm run deploy-commands`: registers the slash commands with Discord and exits. */
async function main(): Promise<void> {
  await deployCommands(readEnv(), (line) => process.stdout.write(`${line}\n`));
}

main().catch((error: unknown) => {
  process.stderr.write(`gatekeeper: could not register the slash commands: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
