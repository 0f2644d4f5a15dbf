import type { ButtonInteraction } from 'discord.js';
import type { MemberPrivacyService } from '../../modules/members';
import { HandlerRefusal, type ButtonHandler, type CommandHandler, type HandlerReply } from '../bot/interaction-dispatcher';
import { recordCommandUse, type CommandWriteDeps } from './command-support';
import { privacySummary } from './privacy-summary';

/** The confirmation button's custom id is `${PRIVACY_DELETE_BUTTON}:${discordId}`. */
export const PRIVACY_DELETE_BUTTON = 'gatekeeper:privacy-delete';

export const NOTHING_STORED = 'Gatekeeper stores nothing about you: there is no verification record for your account.';

type PrivacyDeps = CommandWriteDeps & { privacy: MemberPrivacyService };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * `/privacy show|delete` (everyone). Showing is recorded (audit + logs channel) only when
 * there is a record: a lookup of nothing must not create data about the asker. Delete
 * asks for confirmation first; the button does the deletion.
 */
export function privacyCommand(deps: PrivacyDeps): CommandHandler {
  async function show(userId: string): Promise<HandlerReply> {
    const report = await deps.privacy.report(userId);
    if (!report) return { content: NOTHING_STORED };
    await recordCommandUse(deps, {
      // the member acts on their own record: only the Discord ID goes into the audit log
      actor: { type: 'discord', id: userId, name: null },
      action: 'privacy.show',
      targetType: 'member',
      targetId: userId,
      event: 'privacy',
      log: `👁️ <@${userId}> viewed their stored data with /privacy show`,
    });
    return { content: privacySummary(report) };
  }

  async function askToDelete(userId: string): Promise<HandlerReply> {
    const report = await deps.privacy.report(userId);
    if (!report) return { content: NOTHING_STORED };
    const { counts } = report;
    return {
      content: [
        `This permanently deletes every record Gatekeeper holds about you: your verification record, ${plural(counts.attempts, 'verification attempt')}, ${plural(counts.altLinks, 'alt link')} and ${plural(counts.notes, 'staff note')}.`,
        'The audit log keeps only your Discord ID and the fact that you deleted your data. Your roles on this server stay as they are; to be verified again later, verify on the website.',
        'Press **Delete my data** to confirm.',
      ].join('\n'),
      buttons: [{ customId: `${PRIVACY_DELETE_BUTTON}:${userId}`, label: 'Delete my data', style: 'danger' }],
    };
  }

  return {
    staffOnly: false,
    async run(interaction) {
      const subcommand = interaction.options.getSubcommand(false);
      if (subcommand === 'show') return show(interaction.user.id);
      if (subcommand === 'delete') return askToDelete(interaction.user.id);
      throw new HandlerRefusal('Use /privacy show or /privacy delete.');
    },
  };
}

/** 'Delete my data': only the member who asked may confirm; the deletion is the staff deletion's code path. */
export function privacyDeleteButton(deps: Pick<PrivacyDeps, 'privacy' | 'nudgeOutbox'>): ButtonHandler {
  return async (interaction: ButtonInteraction) => {
    const ownerId = interaction.customId.slice(PRIVACY_DELETE_BUTTON.length + 1);
    if (ownerId !== interaction.user.id) throw new HandlerRefusal('Only the member who asked for this deletion can confirm it.');
    const deleted = await deps.privacy.deleteOwnData(ownerId);
    if (!deleted) return { content: 'There is nothing left to delete: Gatekeeper stores nothing about you.' };
    deps.nudgeOutbox?.();
    return {
      content: `🗑️ Done: every record about you has been deleted (${plural(deleted.attempts, 'verification attempt')}, ${plural(deleted.links, 'alt link')}, ${plural(deleted.notes, 'staff note')}). The audit log keeps only your Discord ID and the fact that you deleted your data.`,
    };
  };
}
