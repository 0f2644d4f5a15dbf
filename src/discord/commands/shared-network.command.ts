import {
  ALREADY_SHARED,
  NO_NETWORK_ON_RECORD,
  NOT_SHARED,
  SHARED_NETWORK_LABEL_MAX,
  type SharedNetworkService,
  type SharedNetworkView,
} from '../../modules/members';
import { HandlerRefusal, type CommandHandler, type HandlerReply } from '../bot/interaction-dispatcher';
import {
  auditActorOfInteraction,
  discordStaffOf,
  recordCommandUse,
  refuseOnDomainError,
  targetUser,
  who,
  type CommandWriteDeps,
} from './command-support';
import { discordTime } from './lookup-summary';

type SharedNetworkDeps = CommandWriteDeps & { sharedNetworks: SharedNetworkService };

const LISTED = 20;

function refusals(user: { id: string; username: string }): Record<string, string> {
  return {
    [NO_NETWORK_ON_RECORD]: `${who(user)} has no network on record (Limited Access records keep none), so there is no network to mark.`,
    [ALREADY_SHARED]: `The network of ${who(user)} is already marked as shared: nothing changed.`,
    [NOT_SHARED]: `The network of ${who(user)} is not marked as shared: nothing changed.`,
  };
}

export function sharedNetworkList(networks: SharedNetworkView[]): string {
  if (networks.length === 0) return 'No network is marked as shared. Mark one with `/shared-network mark`.';
  const lines = networks
    .slice(0, LISTED)
    .map(
      (n) =>
        `• \`${n.networkHash}\`${n.label ? ` "${n.label}"` : ''} · ${n.members} member record${n.members === 1 ? '' : 's'} · marked by ${n.markedBy ?? 'unknown'} ${discordTime(n.createdAt, 'd')}`,
    );
  const more = networks.length > LISTED ? [`…and ${networks.length - LISTED} more (see the dashboard).`] : [];
  return [`**Shared networks (${networks.length})**: IP and network matches there do not count.`, ...lines, ...more].join('\n');
}

/**
 * `/shared-network mark|list|remove` (staff). A network is named through a member on it,
 * never by its hash; marking takes effect at the next verification from that network.
 */
export function sharedNetworkCommand(deps: SharedNetworkDeps): CommandHandler {
  async function mark(interaction: Parameters<CommandHandler['run']>[0]): Promise<HandlerReply> {
    const user = targetUser(interaction);
    const label = interaction.options.getString('label')?.trim() || null;
    if (label && label.length > SHARED_NETWORK_LABEL_MAX)
      throw new HandlerRefusal(
        `Labels can be at most ${SHARED_NETWORK_LABEL_MAX} characters (this one has ${label.length}): nothing was marked.`,
      );
    const change = await refuseOnDomainError(
      () => deps.sharedNetworks.markForMember(discordStaffOf(interaction), user.id, label),
      user,
      refusals(user),
    );
    deps.nudgeOutbox?.();
    return {
      content: `🏠 The network of ${who(user)} is now marked as shared${label ? ` ("${label}")` : ''}. From the next verification on, IP and network matches there no longer count as alt evidence (${change.members} member record${change.members === 1 ? '' : 's'} on it; links found earlier stay).`,
    };
  }

  async function remove(interaction: Parameters<CommandHandler['run']>[0]): Promise<HandlerReply> {
    const user = targetUser(interaction);
    const change = await refuseOnDomainError(
      () => deps.sharedNetworks.unmarkForMember(discordStaffOf(interaction), user.id),
      user,
      refusals(user),
    );
    deps.nudgeOutbox?.();
    return {
      content: `The network of ${who(user)}${change.label ? ` ("${change.label}")` : ''} is no longer marked as shared: IP and network matches there count again from the next verification.`,
    };
  }

  async function list(interaction: Parameters<CommandHandler['run']>[0]): Promise<HandlerReply> {
    const networks = await deps.sharedNetworks.list();
    await recordCommandUse(deps, {
      actor: auditActorOfInteraction(interaction),
      action: 'command.shared_network_list',
      details: { networks: networks.length },
      log: `🏠 Staff member ${interaction.user.username} listed the shared networks`,
    });
    return { content: sharedNetworkList(networks) };
  }

  const subcommands: Record<string, (interaction: Parameters<CommandHandler['run']>[0]) => Promise<HandlerReply>> = { mark, remove, list };
  return {
    staffOnly: true,
    async run(interaction) {
      const run = subcommands[interaction.options.getSubcommand(false) ?? ''];
      if (!run) throw new HandlerRefusal('Use /shared-network mark, list or remove.');
      return run(interaction);
    },
  };
}
