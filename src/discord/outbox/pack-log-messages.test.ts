import { MAX_MESSAGE, packLogMessages } from './pack-log-messages';

describe('log lines packed into messages', () => {
  it('fills each message up to Discord’s limit, in order, and names the lines each carries', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `✅ line ${i} ${'x'.repeat(60)}`);
    const messages = packLogMessages(lines);
    expect(messages.map((m) => m.content).join('\n')).toBe(lines.join('\n'));
    expect(messages.flatMap((m) => m.lines)).toEqual(lines.map((_, i) => i));
    for (const message of messages) expect(message.content.length).toBeLessThanOrEqual(MAX_MESSAGE);
    // every message but the last is full: its next line would not have fitted
    for (let i = 0; i < messages.length - 1; i++) {
      const next = lines[messages[i + 1]!.lines[0]!]!;
      expect(messages[i]!.content.length + 1 + next.length).toBeGreaterThan(MAX_MESSAGE);
    }
  });

  it('cuts a line longer than a message to one message', () => {
    const messages = packLogMessages(['a'.repeat(MAX_MESSAGE + 50), 'b']);
    expect(messages.map((m) => m.content.length)).toEqual([MAX_MESSAGE, 1]);
  });
});
