import type { ManualAltStatus } from '../../shared/member-badges';
import { ALREADY_VERIFIED, ALT_STATUS_UNCHANGED, ALT_STATUS_WORDS, NOT_VERIFIED, type MembersService } from '../../modules/members';
import { HandlerRefusal, type CommandHandler } from '../bot/interaction-dispatcher';
import { discordStaffOf, refuseOnDomainError, targetUser, who, type CommandWriteDeps } from './command-support';
import { NOTE_MAX_LENGTH } from './definitions';

type MemberCommandDeps = Pick<CommandWriteDeps, 'nudgeOutbox'> & {
  members: Pick<MembersService, 'manualVerify' | 'unverify' | 'setAltStatus' | 'addNote'>;
};

/** The `status` choices of /alt-status and the override each one sets. */
export const ALT_STATUS_CHOICES: Record<string, ManualAltStatus | null> = {
  none: null,
  suspected: 'suspected_alt',
  certain: 'certain_alt',
};

/** `/manverify user` (staff): full access through the outbox, audited with the Discord staff member as actor. */
export function manverifyCommand(deps: MemberCommandDeps): CommandHandler {
  return {
    staffOnly: true,
    async run(interaction) {
      const user = targetUser(interaction);
      await refuseOnDomainError(() => deps.members.manualVerify(discordStaffOf(interaction), user.id), user, {
        [ALREADY_VERIFIED]: `${who(user)} is already verified: nothing changed.`,
      });
      deps.nudgeOutbox?.();
      return { content: `✅ ${who(user)} is now verified: the Verified role is being granted (Unverified and Limited Access removed).` };
    },
  };
}

/** `/unverify user` (staff): roles back to Unverified; the member must accept the rules on the website again. */
export function unverifyCommand(deps: MemberCommandDeps): CommandHandler {
  return {
    staffOnly: true,
    async run(interaction) {
      const user = targetUser(interaction);
      await refuseOnDomainError(() => deps.members.unverify(discordStaffOf(interaction), user.id), user, {
        [NOT_VERIFIED]: `${who(user)} is not verified: there is nothing to take away.`,
      });
      deps.nudgeOutbox?.();
      return {
        content: `${who(user)} is no longer verified: the Verified and Limited Access roles are being removed and Unverified given back. They must accept the rules on the website again.`,
      };
    },
  };
}

/** `/alt-status user status` (staff): the override that always wins over detection. */
export function altStatusCommand(deps: MemberCommandDeps): CommandHandler {
  return {
    staffOnly: true,
    async run(interaction) {
      const user = targetUser(interaction);
      const choice = interaction.options.getString('status') ?? '';
      if (!(choice in ALT_STATUS_CHOICES)) throw new HandlerRefusal('Status must be none, suspected or certain.');
      const status = ALT_STATUS_CHOICES[choice] ?? null;
      await refuseOnDomainError(
        () => deps.members.setAltStatus(discordStaffOf(interaction), user.id, status, { refuseUnchanged: true }),
        user,
        {
          [ALT_STATUS_UNCHANGED]: `${who(user)} already has the alt status "${ALT_STATUS_WORDS[status ?? 'none']}": nothing changed.`,
        },
      );
      deps.nudgeOutbox?.();
      return { content: `Alt status of ${who(user)} set to "${ALT_STATUS_WORDS[status ?? 'none']}".` };
    },
  };
}

/** `/note user text` (staff): an internal note, shown on the detail page. */
export function noteCommand(deps: MemberCommandDeps): CommandHandler {
  return {
    staffOnly: true,
    async run(interaction) {
      const user = targetUser(interaction);
      const text = (interaction.options.getString('text') ?? '').trim();
      if (text.length === 0) throw new HandlerRefusal('The note is empty: nothing was saved.');
      if (text.length > NOTE_MAX_LENGTH)
        throw new HandlerRefusal(`Notes can be at most ${NOTE_MAX_LENGTH} characters (this one has ${text.length}): nothing was saved.`);
      await refuseOnDomainError(() => deps.members.addNote(discordStaffOf(interaction), user.id, text), user);
      deps.nudgeOutbox?.();
      return { content: `📝 Note saved on ${who(user)}. Staff see it on the detail page.` };
    },
  };
}
