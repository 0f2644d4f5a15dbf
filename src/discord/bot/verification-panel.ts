import type { REST } from '@discordjs/rest';
import { ButtonStyle, ComponentType, Routes, type APIMessage, type RESTPostAPIChannelMessageJSONBody } from 'discord-api-types/v10';
import { VERIFY_BUTTON_ID } from './verify-button';

export const PANEL_TITLE = 'Server Verification';

export function panelMessage(websiteUrl: string): RESTPostAPIChannelMessageJSONBody {
  return {
    embeds: [
      {
        title: PANEL_TITLE,
        description: [
          '**1.** Verify on the website (sign in with Discord): ' + websiteUrl,
          '**2.** Read and accept the server rules.',
          '**3.** Click **Complete Verification!** below to get your roles.',
        ].join('\n'),
        color: 0x5865f2,
      },
    ],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          { type: ComponentType.Button, style: ButtonStyle.Success, label: 'Complete Verification!', custom_id: VERIFY_BUTTON_ID },
        ],
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

function isPanel(message: APIMessage, botUserId: string): boolean {
  return (
    message.author.id === botUserId &&
    (message.components ?? []).some(
      (row) => 'components' in row && row.components.some((c) => 'custom_id' in c && c.custom_id === VERIFY_BUTTON_ID),
    )
  );
}

/** Finds our panel among the channel's recent messages, or posts a new one. Returns its id. */
export async function ensureVerificationPanel(
  rest: REST,
  input: { channelId: string; botUserId: string; websiteUrl: string; knownMessageId?: string | null },
): Promise<{ messageId: string; posted: boolean }> {
  const recent = (await rest.get(Routes.channelMessages(input.channelId), { query: new URLSearchParams({ limit: '50' }) })) as APIMessage[];
  const existing =
    recent.find((m) => m.id === input.knownMessageId && isPanel(m, input.botUserId)) ?? recent.find((m) => isPanel(m, input.botUserId));
  if (existing) return { messageId: existing.id, posted: false };
  const message = (await rest.post(Routes.channelMessages(input.channelId), { body: panelMessage(input.websiteUrl) })) as APIMessage;
  return { messageId: message.id, posted: true };
}
