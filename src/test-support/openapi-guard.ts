import { PRODUCT_TOKEN } from '../discord-user-agent';
import { setOpenApiViolationSink, type OpenApiViolation } from '../discord-emulator';

/**
 * Fails the test during which the product sent the Discord emulator a request that Discord's
 * OpenAPI description does not allow (the emulator checks every REST request it receives).
 * Only the product's own clients count, told by the User-Agent that names the product: tests
 * that send the emulator bad requests on purpose get Discord's answers and are not failed.
 * Undocumented fields and query parameters (notes: Discord ignores them) are not failed on.
 * Loaded by jest (setupFilesAfterEnv) for every server test file.
 */
const found: OpenApiViolation[] = [];
setOpenApiViolationSink((violation) => {
  if (violation.userAgent.includes(PRODUCT_TOKEN) && violation.problems.length > 0) found.push(violation);
});

/** What the product sent since the last call, one line per request kind, or null when nothing; clears the list. */
export function takeProductViolationReport(): string | null {
  if (found.length === 0) return null;
  const lines = found.splice(0).map((v) => `  ${v.method} ${v.path}: ${v.problems.join('; ')}`);
  return `The product sent Discord requests its OpenAPI description does not allow:\n${[...new Set(lines)].join('\n')}`;
}

function failOnViolations(): void {
  const report = takeProductViolationReport();
  if (report) throw new Error(report);
}

afterEach(failOnViolations);
afterAll(failOnViolations);
