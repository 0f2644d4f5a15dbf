import type { ButtonInteraction } from 'discord.js';
import type { MemberPrivacyService } from '../../modules/members';
import { HandlerRefusal } from '../bot/interaction-dispatcher';
import { privacyDeleteButton, PRIVACY_DELETE_BUTTON } from './privacy.command';

/** The button handler reads only the custom id and who clicked. */
const click = (customId: string, userId: string) => ({ customId, user: { id: userId } }) as unknown as ButtonInteraction;

describe("'Delete my data' button", () => {
  function setup() {
    const deleted: string[] = [];
    const privacy: Pick<MemberPrivacyService, 'deleteOwnData'> = {
      async deleteOwnData(discordId) {
        deleted.push(discordId);
        return { discordId, attempts: 1, links: 0, notes: 0, relinkedMembers: 0, outbox: { tokens: 0, finished: 0, logLines: 0 } };
      },
    };
    return { deleted, handler: privacyDeleteButton({ privacy: privacy as MemberPrivacyService }) };
  }

  it('refuses anyone but the member who asked, deleting nothing', async () => {
    const { deleted, handler } = setup();
    await expect(handler(click(`${PRIVACY_DELETE_BUTTON}:111111111111111111`, '222222222222222222'))).rejects.toEqual(
      new HandlerRefusal('Only the member who asked for this deletion can confirm it.'),
    );
    expect(deleted).toEqual([]);
  });

  it("deletes the asker's own data", async () => {
    const { deleted, handler } = setup();
    const reply = await handler(click(`${PRIVACY_DELETE_BUTTON}:111111111111111111`, '111111111111111111'));
    expect(deleted).toEqual(['111111111111111111']);
    expect(reply.content).toBe(
      '🗑️ Done: every record about you has been deleted (1 verification attempt, 0 alt links, 0 staff notes). The audit log keeps only your Discord ID and the fact that you deleted your data.',
    );
  });
});
