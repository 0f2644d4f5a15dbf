import { ButtonStyle, ComponentType } from 'discord-api-types/v10';
import { MAX_MESSAGE } from '../outbox/pack-log-messages';
import {
  CARDS_PER_MESSAGE,
  HANDLED_ROOM,
  MAX_CUSTOM_ID,
  MAX_EMBED_TEXT,
  cardRow,
  decodeLogButton,
  encodeLogButton,
  logLineOf,
  planLogPosts,
  type LogLine,
} from './log-card-message';

const A = '100000000000000001';
const B = '100000000000000002';
const site = 'https://verify.example.com';

const text = (id: number, t = `line ${id}`): LogLine => ({ id, text: t, event: 'staff_action', card: null });
const card = (id: number, t = `card ${id}`): LogLine => ({ id, text: t, event: 'limited_access', card: { for: 'member', discordId: A } });

describe('log card buttons', () => {
  it('round-trips every custom_id within Discord’s 100 characters, the longest ids included', () => {
    const longest = { action: 'notsame' as const, card: 999_999_999_999_999, discordId: '9'.repeat(20), mainId: '9'.repeat(20) };
    expect(encodeLogButton(longest).length).toBeLessThanOrEqual(MAX_CUSTOM_ID);
    expect(decodeLogButton(encodeLogButton(longest))).toEqual(longest);
    expect(decodeLogButton(encodeLogButton({ action: 'approve', card: 7, discordId: A, appealId: 12 }))).toEqual({
      action: 'approve',
      card: 7,
      discordId: A,
      appealId: 12,
    });
    expect(decodeLogButton(encodeLogButton({ action: 'kick', card: 7, discordId: A }))).toEqual({ action: 'kick', card: 7, discordId: A });
  });

  it.each([
    ['another prefix', `gatekeeper:verify`],
    ['an unknown action', `gk-log:delete:1:${A}`],
    ['a user id that is not a snowflake', 'gk-log:kick:1:abc'],
    ['an extra part on kick', `gk-log:kick:1:${A}:${B}`],
    ['notsame without the main', `gk-log:notsame:1:${A}`],
    ['an appeal id that is not a number', `gk-log:approve:1:${A}:x`],
    ['too many parts', `gk-log:approve:1:${A}:2:3`],
  ])('refuses %s', (_name, id) => {
    expect(decodeLogButton(id)).toBeNull();
  });

  it('gives each card its buttons (at most 5) and a dashboard link', () => {
    const labels = (row: ReturnType<typeof cardRow>) => row.components.map((c) => ('label' in c ? c.label : ''));
    expect(labels(cardRow({ for: 'member', discordId: A }, 1, site))).toEqual(['Verify', 'Deny / Kick', 'Ban', 'Dashboard']);
    expect(labels(cardRow({ for: 'member', discordId: A, verified: true }, 1, site))).toEqual(['Deny / Kick', 'Ban', 'Dashboard']);
    expect(labels(cardRow({ for: 'alt', discordId: A, mainId: B }, 1, site))).toEqual([
      'Verify',
      'Deny / Kick',
      'Ban',
      'Not the same person',
      'Dashboard',
    ]);
    expect(labels(cardRow({ for: 'appeal', discordId: A, appealId: 3 }, 1, `${site}/`))).toEqual([
      'Approve appeal',
      'Reject appeal',
      'Dashboard',
    ]);
    const link = cardRow({ for: 'appeal', discordId: A, appealId: 3 }, 1, `${site}/`).components.at(-1)!;
    expect(link).toEqual({ type: ComponentType.Button, style: ButtonStyle.Link, label: 'Dashboard', url: `${site}/admin/user/${A}` });
  });
});

describe('planLogPosts', () => {
  it('keeps the order: text lines merged, cards up to 5 a message, each card its own row; nobody pinged', () => {
    const lines = [text(1), text(2), card(3), card(4), text(5), ...Array.from({ length: 7 }, (_, i) => card(6 + i))];
    const posts = planLogPosts(lines, site);
    expect(posts.map((p) => p.lines)).toEqual([[0, 1], [2, 3], [4], [5, 6, 7, 8, 9], [10, 11]]);
    expect(posts[0]!.body.content).toBe('line 1\nline 2');
    expect(posts[1]!.body.embeds!.map((e) => e.description)).toEqual(['card 3', 'card 4']);
    expect(posts[1]!.body.components).toHaveLength(2);
    expect(posts[3]!.body.embeds).toHaveLength(CARDS_PER_MESSAGE);
    for (const post of posts) expect(post.body.allowed_mentions).toEqual({ parse: [] });
  });

  it('starts a new message before the cards’ text would pass 6,000 characters, and cuts a description to 4,096', () => {
    const posts = planLogPosts([card(1, 'a'.repeat(3000)), card(2, 'b'.repeat(3000)), card(3, 'c'), card(4, 'd'.repeat(5000))], site);
    expect(posts.map((p) => p.lines)).toEqual([[0], [1, 2], [3]]);
    // with the "Handled" line added to every card, still within Discord's limit
    for (const post of posts)
      expect(post.body.embeds!.reduce((n, e) => n + (e.description?.length ?? 0) + HANDLED_ROOM, 0)).toBeLessThanOrEqual(MAX_EMBED_TEXT);
    expect(posts[2]!.body.embeds![0]!.description).toHaveLength(4096);
  });

  it('packs text lines as before (each message within 2,000 characters)', () => {
    const posts = planLogPosts(
      Array.from({ length: 60 }, (_, i) => text(i, 'x'.repeat(99))),
      site,
    );
    for (const post of posts) expect(post.body.content!.length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect(posts.flatMap((p) => p.lines)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it('with a role to ping, a post of alarm lines pings that role alone; every other post pings nobody', () => {
    const ROLE = '100000000000000009';
    const alarmText = (id: number): LogLine => ({ ...text(id, `raid ${id}`), alarm: true });
    const alarmCard = (id: number): LogLine => ({ ...card(id, `certain alt ${id}`), alarm: true });
    const lines = [text(1), alarmText(2), text(3), card(4), alarmCard(5), alarmCard(6), card(7)];
    const posts = planLogPosts(lines, site, ROLE);
    expect(posts.map((p) => p.lines)).toEqual([[0], [1], [2], [3], [4, 5], [6]]);
    const pinging = { parse: [], roles: [ROLE] };
    expect(posts.map((p) => p.body.allowed_mentions)).toEqual([
      { parse: [] },
      pinging,
      { parse: [] },
      { parse: [] },
      pinging,
      { parse: [] },
    ]);
    expect(posts[1]!.body.content).toBe(`<@&${ROLE}>\nraid 2`);
    expect(posts[4]!.body.content).toBe(`<@&${ROLE}>`);
    expect(posts[4]!.body.embeds!.map((e) => e.description)).toEqual(['certain alt 5', 'certain alt 6']);
    expect(posts[3]!.body.content).toBeUndefined();

    // no role set: alarm lines merge with the rest, and nobody is pinged
    const unset = planLogPosts(lines, site);
    expect(unset.map((p) => p.lines)).toEqual([
      [0, 1, 2],
      [3, 4, 5, 6],
    ]);
    for (const post of unset) expect(post.body.allowed_mentions).toEqual({ parse: [] });
    expect(unset[1]!.body.content).toBeUndefined();
  });

  it('keeps a pinging text post within 2,000 characters, the mention included', () => {
    const ROLE = '100000000000000009';
    const posts = planLogPosts(
      Array.from({ length: 30 }, (_, i) => ({ ...text(i, 'y'.repeat(99)), alarm: true })),
      site,
      ROLE,
    );
    expect(posts.length).toBeGreaterThan(1);
    for (const post of posts) {
      expect(post.body.content!.length).toBeLessThanOrEqual(MAX_MESSAGE);
      expect(post.body.content!.startsWith(`<@&${ROLE}>\n`)).toBe(true);
    }
    expect(posts.flatMap((p) => p.lines)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('reads a stored line; a card that does not read as one leaves the line as text', () => {
    expect(logLineOf({ id: 4, payload: { text: 'hi', event: 'appeal', card: { for: 'appeal', discordId: A, appealId: 2 } } })).toEqual({
      id: 4,
      text: 'hi',
      event: 'appeal',
      card: { for: 'appeal', discordId: A, appealId: 2 },
    });
    expect(logLineOf({ id: 5, payload: { text: 'old line', event: null } }).card).toBeNull();
    expect(logLineOf({ id: 6, payload: { text: 'odd', card: { for: 'nothing' } } }).card).toBeNull();
    expect(logLineOf({ id: 7, payload: { text: 'raid', event: 'staff_action', alarm: true } }).alarm).toBe(true);
    expect(logLineOf({ id: 8, payload: { text: 'raid', event: 'staff_action', alarm: 'yes' } }).alarm).toBeUndefined();
  });
});
