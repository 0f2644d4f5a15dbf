import { renderContent } from './sandbox-render';
import { createApplication, seedState } from './seed';

describe('renderContent', () => {
  const state = seedState(createApplication(), 'sandbox');

  it('shows Discord timestamp tags as dates, in each style, and leaves broken ones as text', () => {
    const at = Date.UTC(2026, 10, 28, 23, 32) / 1000;
    expect(renderContent(state, `last <t:${at}:f>`).value).toMatch(
      /^last <time class="mention-time" datetime="2026-11-28T23:32:00.000Z" title="[^"]+">28 November 2026 at 23:32 UTC<\/time>$/,
    );
    expect(renderContent(state, `<t:${at}:d>`).value).toContain('>28/11/2026 UTC<');
    expect(renderContent(state, `<t:${at}>`).value).toContain('28 November 2026 at 23:32 UTC');
    expect(renderContent(state, `<t:${Math.floor(Date.now() / 1000) - 7200}:R>`).value).toContain('>2 hours ago<');
    expect(renderContent(state, '<t:abc:f>').value).toBe('&lt;t:abc:f&gt;');
  });
});
