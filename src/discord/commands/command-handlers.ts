import type { REST } from '@discordjs/rest';
import type { MemberPrivacyService, MembersService, SharedNetworkService } from '../../modules/members';
import type { ButtonHandler, CommandHandler } from '../bot/interaction-dispatcher';
import type { GuildDirectory } from '../guild-directory';
import type { CommandWriteDeps } from './command-support';
import { lookupCommand } from './lookup.command';
import { altStatusCommand, manverifyCommand, noteCommand, unverifyCommand } from './member.commands';
import { panelCommand } from './panel.command';
import { privacyCommand, privacyDeleteButton, PRIVACY_DELETE_BUTTON } from './privacy.command';
import { sharedNetworkCommand } from './shared-network.command';
import { lockdownCommand } from './lockdown.command';
import { appealsCommand } from './appeals.command';
import type { AppealsService } from '../../modules/appeals';
import type { AdmissionService } from '../../modules/admission';

export interface CommandHandlerDeps extends CommandWriteDeps {
  members: MembersService;
  sharedNetworks: SharedNetworkService;
  privacy: MemberPrivacyService;
  admission: Pick<AdmissionService, 'setLockdown'>;
  appeals: Pick<AppealsService, 'queue'>;
  rest: REST;
  directory: Pick<GuildDirectory, 'channelId'>;
  websiteUrl: string;
}

/** One handler per registered command, by name (command-handlers.test.ts checks it against definitions.ts). */
export function createCommandHandlers(deps: CommandHandlerDeps): Record<string, CommandHandler> {
  return {
    panel: panelCommand(deps),
    lookup: lookupCommand(deps),
    manverify: manverifyCommand(deps),
    unverify: unverifyCommand(deps),
    'alt-status': altStatusCommand(deps),
    note: noteCommand(deps),
    'shared-network': sharedNetworkCommand(deps),
    privacy: privacyCommand(deps),
    lockdown: lockdownCommand(deps),
    appeals: appealsCommand(deps),
  };
}

/** The buttons commands put in their replies, for the dispatcher's button table. */
export function createCommandButtons(
  deps: Pick<CommandHandlerDeps, 'privacy' | 'nudgeOutbox'>,
): { prefix: string; handler: ButtonHandler }[] {
  return [{ prefix: PRIVACY_DELETE_BUTTON, handler: privacyDeleteButton(deps) }];
}
