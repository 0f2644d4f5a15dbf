import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type InteractionReplyOptions,
} from 'discord.js';
import type { Logger } from '../../logger';

/** What a handler answers; the dispatcher turns it into an ephemeral reply. */
export interface HandlerReply {
  content: string;
  links?: { label: string; url: string }[];
  /** extra buttons (e.g. a confirmation) */
  buttons?: { customId: string; label: string; style?: 'danger' | 'primary' | 'secondary' }[];
}

export class HandlerRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandlerRefusal';
  }
}

export type ButtonHandler = (interaction: ButtonInteraction) => Promise<HandlerReply>;
export interface CommandHandler {
  /** staff-only commands are refused politely to everyone else */
  staffOnly: boolean;
  run(interaction: ChatInputCommandInteraction): Promise<HandlerReply>;
}

export interface DispatcherStats {
  handled: number;
  refused: number;
  failed: number;
}

const STYLE = { danger: ButtonStyle.Danger, primary: ButtonStyle.Primary, secondary: ButtonStyle.Secondary } as const;

function toReply(reply: HandlerReply): InteractionReplyOptions & { flags: MessageFlags.Ephemeral } {
  const row = new ActionRowBuilder<ButtonBuilder>();
  for (const link of reply.links ?? [])
    row.addComponents(new ButtonBuilder().setStyle(ButtonStyle.Link).setLabel(link.label).setURL(link.url));
  for (const button of reply.buttons ?? [])
    row.addComponents(
      new ButtonBuilder()
        .setStyle(STYLE[button.style ?? 'primary'])
        .setLabel(button.label)
        .setCustomId(button.customId),
    );
  return {
    content: reply.content.slice(0, 2000),
    components: row.components.length > 0 ? [row] : [],
    flags: MessageFlags.Ephemeral,
    allowedMentions: { parse: [] },
  };
}

/**
 * Work still running this long after the interaction was created is deferred (an ephemeral "thinking…"),
 * inside Discord's 3-second window. Counted from the interaction's creation (its id's timestamp), not from
 * when it reached the bot: one that arrived late (a busy gateway or event loop) is deferred sooner, or at once.
 */
export const DEFER_AFTER_MS = 1500;

/** How long until an interaction created at `createdAt` must be deferred (0: now), `afterMs` after its creation. */
export function deferDelayMs(createdAt: number, now: number, afterMs = DEFER_AFTER_MS): number {
  if (!Number.isFinite(createdAt)) return afterMs;
  return Math.max(0, Math.min(afterMs, afterMs - (now - createdAt)));
}

/** The answer to a staff-only button pressed by anyone else. */
export const STAFF_BUTTON_REFUSAL =
  "You're not allowed to do this: only server staff (the Staff role or Manage Server) can use these buttons. Nothing changed.";

export interface ButtonRoute {
  prefix: string;
  handler: ButtonHandler;
  /** pressed by someone without the Staff role or Manage Server: refused ephemerally, the handler never runs */
  staffOnly?: boolean;
  /**
   * Defer this long after the interaction's creation instead of DEFER_AFTER_MS: for a button whose work
   * writes to the database and may queue behind a raid's load ('Complete Verification!'), so the member sees
   * an answer early whatever the database is doing. Not at once: a quick answer stays one call (a deferral
   * costs an edit, and @discordjs/rest sends an application's interaction edits one after another).
   */
  deferAfterMs?: number;
}

/**
 * The one place interactions are answered: handlers do the work or
 * throw; the dispatcher checks the guild and permissions, defers when work may pass
 * Discord's 3-second window, replies ephemerally, logs and counts.
 */
export function createInteractionDispatcher(deps: {
  logger: Logger;
  guildId: string;
  buttons: ButtonRoute[];
  commands: Record<string, CommandHandler>;
  isStaff: (interaction: ChatInputCommandInteraction | ButtonInteraction) => boolean | Promise<boolean>;
  /** counts results (metrics) */
  onResult?: (result: keyof DispatcherStats) => void;
}) {
  const stats: DispatcherStats = { handled: 0, refused: 0, failed: 0 };

  async function answer(
    interaction: ButtonInteraction | ChatInputCommandInteraction,
    work: () => Promise<HandlerReply>,
    name: string,
    deferAfterMs = DEFER_AFTER_MS,
  ) {
    // another server's interaction is refused as every refusal is: counted, answered, and an answer Discord refuses is logged
    const ours = interaction.guildId === deps.guildId;
    const run = ours
      ? work
      : async (): Promise<HandlerReply> => {
          throw new HandlerRefusal('Gatekeeper does not manage this server, so it cannot help here.');
        };
    // answer within Discord's window even if the database is slow
    let deferring: Promise<unknown> | undefined;
    const defer = () => {
      if (!interaction.replied && !interaction.deferred && !deferring)
        deferring = interaction.deferReply({ flags: MessageFlags.Ephemeral }).catch(() => undefined);
    };
    const deferTimer = setTimeout(defer, deferDelayMs(interaction.createdTimestamp, Date.now(), ours ? deferAfterMs : DEFER_AFTER_MS));
    let reply: HandlerReply;
    try {
      reply = await run();
      stats.handled++;
      deps.onResult?.('handled');
    } catch (error) {
      if (error instanceof HandlerRefusal) {
        stats.refused++;
        deps.onResult?.('refused');
        reply = { content: error.message };
      } else {
        stats.failed++;
        deps.onResult?.('failed');
        deps.logger.error({ err: error, interaction: name }, 'interaction failed');
        reply = { content: 'Something went wrong on our side. Please try again in a minute, or contact server staff.' };
      }
    } finally {
      clearTimeout(deferTimer);
    }
    // a deferral sent just before the work ended is still on its way: `deferred` turns true only when it
    // arrives, and a reply sent meanwhile is refused (already acknowledged), leaving "thinking…" forever
    await deferring;
    try {
      if (interaction.deferred || interaction.replied) {
        const { flags: _ephemeral, ...edit } = toReply(reply);
        await interaction.editReply(edit);
      } else {
        await interaction.reply(toReply(reply));
      }
      deps.logger.debug({ interaction: name, user: interaction.user.id }, 'interaction answered');
    } catch (error) {
      deps.logger.warn({ err: error, interaction: name }, 'could not answer the interaction');
    }
  }

  return {
    stats,
    async dispatch(interaction: Interaction): Promise<void> {
      if (interaction.isButton()) {
        const route = deps.buttons.find((b) => interaction.customId === b.prefix || interaction.customId.startsWith(`${b.prefix}:`));
        if (!route) return;
        await answer(
          interaction,
          async () => {
            if (route.staffOnly && !(await deps.isStaff(interaction))) throw new HandlerRefusal(STAFF_BUTTON_REFUSAL);
            return route.handler(interaction);
          },
          `button:${route.prefix}`,
          route.deferAfterMs,
        );
        return;
      }
      if (interaction.isChatInputCommand()) {
        const command = deps.commands[interaction.commandName];
        if (!command) return;
        await answer(
          interaction,
          async () => {
            if (command.staffOnly && !(await deps.isStaff(interaction)))
              throw new HandlerRefusal('Sorry, this command is for server staff only.');
            return command.run(interaction);
          },
          `command:${interaction.commandName}`,
        );
      }
    },
  };
}
