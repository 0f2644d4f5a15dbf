import { createGuildMemberCache, learnFromGatewayEvent } from './guild-member-cache';

describe('guild member cache', () => {
  it('keeps the roles last seen, forgets on request, and stops relying on an old sighting', () => {
    let now = 1_000;
    const cache = createGuildMemberCache({ maxAgeMs: 60_000, now: () => now });
    cache.remember('1', ['a', 'b', 'a']);
    expect(cache.roles('1')).toEqual(['a', 'b']);
    expect(cache.roles('2')).toBeUndefined();
    now += 60_001;
    expect(cache.roles('1')).toBeUndefined();
    cache.remember('1', []);
    expect(cache.roles('1')).toEqual([]);
    cache.forget('1');
    expect(cache.roles('1')).toBeUndefined();
  });

  it('holds at most maxEntries, dropping the oldest sighting', () => {
    const cache = createGuildMemberCache({ maxEntries: 2 });
    cache.remember('1', ['a']);
    cache.remember('2', ['a']);
    cache.remember('1', ['b']); // seen again: now the newest
    cache.remember('3', ['a']);
    expect(cache.roles('2')).toBeUndefined();
    expect(cache.roles('1')).toEqual(['b']);
    expect(cache.roles('3')).toEqual(['a']);
  });

  it('learns from interactions and member events, and forgets a member who left', () => {
    const cache = createGuildMemberCache();
    learnFromGatewayEvent(cache, { t: 'INTERACTION_CREATE', d: { guild_id: 'g', member: { user: { id: '1' }, roles: ['r1'] } } });
    learnFromGatewayEvent(cache, { t: 'GUILD_MEMBER_ADD', d: { guild_id: 'g', user: { id: '2' }, roles: [] } });
    learnFromGatewayEvent(cache, { t: 'GUILD_MEMBER_UPDATE', d: { guild_id: 'g', user: { id: '2' }, roles: ['r2'] } });
    // a direct-message interaction has no member: nothing learnt
    learnFromGatewayEvent(cache, { t: 'INTERACTION_CREATE', d: { user: { id: '3' } } });
    expect(cache.roles('1')).toEqual(['r1']);
    expect(cache.roles('2')).toEqual(['r2']);
    expect(cache.roles('3')).toBeUndefined();
    learnFromGatewayEvent(cache, { t: 'GUILD_MEMBER_REMOVE', d: { guild_id: 'g', user: { id: '2' } } });
    expect(cache.roles('2')).toBeUndefined();
  });
});
