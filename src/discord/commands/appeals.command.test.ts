import type { StaffAppealView } from '../../shared/appeals';
import { buildBadgeSubject } from '../../shared/test-support/member-fixtures';
import { appealsSummary, APPEALS_LISTED } from './appeals.command';

const appeal = (id: number): StaffAppealView => ({
  id,
  message: 'secret words <@everyone>',
  status: 'open',
  standingAtFiling: 'certain_alt',
  standing: 'certain_alt',
  createdAt: new Date(Date.UTC(2026, 0, 1, 12)).toISOString(),
  member: {
    id,
    discordId: `30000000000000${String(id).padStart(4, '0')}`,
    username: `member${id}`,
    avatarUrl: null,
    ...buildBadgeSubject({ isLinkedAsAlt: true, altsFound: 1 }),
    timestamp: new Date().toISOString(),
  },
  evidence: { links: { certain: 1, medium: 0 }, topLinks: [], vpnProvider: null, gateReason: null },
  decidedAt: null,
  decidedByName: null,
  decisionReason: null,
  outcome: null,
});

describe('/appeals reply', () => {
  it('says there is nothing open, with the link to the queue', () => {
    expect(appealsSummary({ appeals: [], open: 0 }, 'https://gk.example')).toEqual({
      content: 'No open appeals.',
      links: [{ label: 'Open the Appeals queue', url: 'https://gk.example/admin/appeals' }],
    });
  });

  it('lists the oldest first, at most ten, counts the rest, and never quotes the visitor', () => {
    const queue = { appeals: Array.from({ length: 12 }, (_, i) => appeal(i + 1)), open: 12 };
    const reply = appealsSummary(queue, 'https://gk.example');
    const lines = reply.content.split('\n');
    expect(lines[0]).toBe('📨 12 open appeals, oldest first:');
    expect(lines.slice(1, 1 + APPEALS_LISTED)).toHaveLength(APPEALS_LISTED);
    expect(lines[1]).toBe(`• #1 <@300000000000000001> (member1): Certain Alt, filed <t:${Date.UTC(2026, 0, 1, 12) / 1000}:R>`);
    expect(lines.at(-1)).toBe('…and 2 more on the dashboard.');
    expect(reply.content).not.toContain('secret words');
  });
});
