/**
 * Discord's length limit for a message's content, 2,000 characters. JavaScript counts UTF-16
 * units, never fewer than the characters Discord counts, so a string within it always fits.
 */
export const MAX_MESSAGE = 2000;

/** Log lines packed into messages: each message's text and the lines (by index) it carries. */
export interface PackedMessage {
  content: string;
  lines: number[];
}

/**
 * Merges log lines into as few messages as fit Discord's length limit (or `limit`, when part of
 * the message is taken), in order (a line longer than a message is cut to one). Every message
 * but the last is full: the next line did not fit in it.
 */
export function packLogMessages(lines: readonly string[], limit = MAX_MESSAGE): PackedMessage[] {
  const messages: PackedMessage[] = [];
  lines.forEach((raw, index) => {
    const line = raw.slice(0, limit);
    const last = messages.at(-1);
    if (last !== undefined && last.content.length + line.length + 1 <= limit) {
      last.content = `${last.content}\n${line}`;
      last.lines.push(index);
    } else messages.push({ content: line, lines: [index] });
  });
  return messages;
}
