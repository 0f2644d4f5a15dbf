/** One request the emulator received that Discord's OpenAPI description does not allow. */
export interface OpenApiViolation {
  method: string;
  /** The description's template when the operation is known (no ids or tokens), else the path with long segments masked. */
  path: string;
  /** What Discord's description does not allow (the test guard fails on these). */
  problems: string[];
  /** Undocumented query parameters and body fields: Discord ignores them, so they are logged and kept, not failed on. */
  notes: string[];
  /** The sender's User-Agent ('' when none): a test guard tells its own application's requests from a test's probes by it. */
  userAgent: string;
}

export type OpenApiViolationSink = (violation: OpenApiViolation) => void;

/** Process-wide, so the test set-up that installs it sees every emulator the test starts, whichever module copy created it. */
const SINK = Symbol.for('gatekeeper.discordEmulator.openapiViolationSink');
type SinkHolder = { [SINK]?: OpenApiViolationSink };

/**
 * Tests install one (Gatekeeper's: `src/test-support/openapi-guard.ts`); without one, violations are only
 * logged and kept on the emulator. Returns the sink it replaced, to put back.
 */
export function setOpenApiViolationSink(sink: OpenApiViolationSink | null): OpenApiViolationSink | null {
  const previous = (globalThis as SinkHolder)[SINK] ?? null;
  if (sink) (globalThis as SinkHolder)[SINK] = sink;
  else delete (globalThis as SinkHolder)[SINK];
  return previous;
}

export function reportToSink(violation: OpenApiViolation): void {
  (globalThis as SinkHolder)[SINK]?.(violation);
}

/** A path for logs: segments that could be tokens (long, or not plain ids and words) are masked. */
export function maskedPath(segments: string[]): string {
  return '/' + segments.map((s) => (/^[0-9]{1,20}$/.test(s) || /^[@a-z-]{1,24}$/.test(s) ? s : '…')).join('/');
}
