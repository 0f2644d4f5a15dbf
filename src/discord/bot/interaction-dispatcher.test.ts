import type { ButtonInteraction } from 'discord.js';
import type { Logger } from '../../logger';
import { createInteractionDispatcher, DEFER_AFTER_MS, deferDelayMs } from './interaction-dispatcher';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A button interaction whose acknowledgements take `latencyMs` to reach Discord, as discord.js's do over HTTP. */
function slowButton(latencyMs: number) {
  const calls: string[] = [];
  const interaction = {
    guildId: 'guild-1',
    customId: 'verify',
    user: { id: 'user-1' },
    replied: false,
    deferred: false,
    isButton: () => true,
    isChatInputCommand: () => false,
    async deferReply() {
      calls.push('deferReply');
      await sleep(latencyMs);
      interaction.deferred = true;
    },
    async reply(options: { content: string }) {
      // Discord refuses a second acknowledgement of the same interaction
      if (calls.includes('deferReply')) throw new Error('Interaction has already been acknowledged.');
      calls.push(`reply: ${options.content}`);
      interaction.replied = true;
    },
    async editReply(options: { content: string }) {
      calls.push(`editReply: ${options.content}`);
    },
  };
  return { interaction, calls };
}

describe('interaction dispatcher', () => {
  function dispatcherFor(workMs: number) {
    return createInteractionDispatcher({
      logger: silent,
      guildId: 'guild-1',
      buttons: [{ prefix: 'verify', handler: async () => (await sleep(workMs), { content: 'done' }) }],
      commands: {},
      isStaff: () => true,
    });
  }

  it('replies at once when the work is quick', async () => {
    const { interaction, calls } = slowButton(50);
    await dispatcherFor(10).dispatch(interaction as unknown as ButtonInteraction);
    expect(calls).toEqual(['reply: done']);
  });

  it('edits the deferred reply when the work ends while the deferral is still on its way', async () => {
    // the deferral leaves at DEFER_AFTER_MS and arrives 400 ms later; the work ends 100 ms after it left
    const { interaction, calls } = slowButton(400);
    await dispatcherFor(DEFER_AFTER_MS + 100).dispatch(interaction as unknown as ButtonInteraction);
    expect(calls).toEqual(['deferReply', 'editReply: done']);
  });

  it('defers a button with its own deferAfterMs that much after the interaction, and edits in the answer', async () => {
    const routes = (workMs: number) =>
      createInteractionDispatcher({
        logger: silent,
        guildId: 'guild-1',
        buttons: [{ prefix: 'verify', deferAfterMs: 200, handler: async () => (await sleep(workMs), { content: 'done' }) }],
        commands: {},
        isStaff: () => true,
      });
    const slow = slowButton(10);
    await routes(400).dispatch(Object.assign(slow.interaction, { createdTimestamp: Date.now() }) as unknown as ButtonInteraction);
    expect(slow.calls).toEqual(['deferReply', 'editReply: done']);
    // quick work stays one call
    const quick = slowButton(10);
    await routes(20).dispatch(Object.assign(quick.interaction, { createdTimestamp: Date.now() }) as unknown as ButtonInteraction);
    expect(quick.calls).toEqual(['reply: done']);
  });

  it('counts the deferral from when the interaction was created: one that reached the bot late is deferred sooner, or at once', () => {
    const now = 1_000_000;
    expect(deferDelayMs(now, now)).toBe(DEFER_AFTER_MS);
    expect(deferDelayMs(now - 1000, now)).toBe(DEFER_AFTER_MS - 1000);
    expect(deferDelayMs(now - 2500, now)).toBe(0);
    // a clock behind Discord's: never later than DEFER_AFTER_MS after arrival
    expect(deferDelayMs(now + 5000, now)).toBe(DEFER_AFTER_MS);
    expect(deferDelayMs(Number.NaN, now)).toBe(DEFER_AFTER_MS);
    expect(deferDelayMs(now - 100, now, 500)).toBe(400);
  });

  it('defers at once an interaction that arrives already late', async () => {
    const { interaction, calls } = slowButton(10);
    const late = Object.assign(interaction, { createdTimestamp: Date.now() - 2000 });
    await dispatcherFor(200).dispatch(late as unknown as ButtonInteraction);
    expect(calls).toEqual(['deferReply', 'editReply: done']);
  });

  it('an interaction from another server whose refusal Discord does not take: logged, dispatch still resolves', async () => {
    const warned: string[] = [];
    const logger = { ...silent, warn: (_fields: unknown, message: string) => warned.push(message) } as unknown as Logger;
    const dispatcher = createInteractionDispatcher({
      logger,
      guildId: 'guild-1',
      buttons: [{ prefix: 'verify', handler: async () => ({ content: 'done' }) }],
      commands: {},
      isStaff: () => true,
    });
    const { interaction } = slowButton(0);
    const elsewhere = { ...interaction, guildId: 'guild-2', reply: () => Promise.reject(new Error('503 Service Unavailable')) };
    await expect(dispatcher.dispatch(elsewhere as unknown as ButtonInteraction)).resolves.toBeUndefined();
    expect(dispatcher.stats.refused).toBe(1);
    expect(warned).toEqual(['could not answer the interaction']);
  });
});
