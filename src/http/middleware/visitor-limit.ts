import type { Request, RequestHandler } from 'express';
import type { Clock } from '../../clock';
import { TooManyRequests } from '../../errors';
import { assignVisitorId, readVisitorId } from '../visitor-session';
import { createTokenBuckets, waitInWords, type BucketSize } from './rate-limit';

/**
 * The requests one verification makes to the limited visitor routes: the consent token, the
 * consent, /oauth/start, /oauth/callback and the rules confirmation. The pages, the public
 * config and the "Finishing sign-in…" checks (/oauth/finish) are not limited. A test reads
 * the product's routes and checks that these (and the appeal sign-in's /oauth/appeal) are
 * exactly the ones behind this limiter.
 */
export const VISITOR_FLOW_REQUESTS = [
  'GET /api/consent/token',
  'POST /api/consent',
  'GET /oauth/start',
  'GET /oauth/callback',
  'POST /api/rules/confirm',
] as const;
const FLOW = VISITOR_FLOW_REQUESTS.length;

/**
 * A school lab, a campus or a phone carrier puts many people behind one address: a class of
 * 40 verifying in the same few minutes is normal traffic, not an attack.
 */
export const CLASS_SIZE = 40;
/** Each of them may go through the flow one and a half times: a reload, a double click, a second try after an error. */
const FLOWS_PER_VISITOR = 1.5;
/** The address's whole budget comes back in five minutes: the next class (or the same one trying again) is not shut out for long. */
const ADDRESS_REFILL_SECONDS = 5 * 60;

/**
 * Every limited request from one address, with a session or without: a class's flows in a
 * burst (40 × 5 × 1.5 = 300 requests), refilled at 1 a second. This is what still limits a
 * flood from one address whatever its cookies do.
 */
export const ADDRESS_BUDGET: BucketSize = {
  capacity: CLASS_SIZE * FLOW * FLOWS_PER_VISITOR,
  refillPerSecond: (CLASS_SIZE * FLOW * FLOWS_PER_VISITOR) / ADDRESS_REFILL_SECONDS,
};
/**
 * Requests from an address without a visitor session: one per visitor of the class (the
 * consent token, a browser's first limited request, gives it its session), refilled over the
 * same five minutes (one new browser every 7.5 s). A client that drops its cookie, or takes a
 * new session each time, spends from this small budget at every request.
 */
export const NEWCOMER_BUDGET: BucketSize = { capacity: CLASS_SIZE, refillPerSecond: CLASS_SIZE / ADDRESS_REFILL_SECONDS };
/**
 * One browser's session: three flows at once (a retry and a reload storm on top of the
 * flow), then one flow a minute. One stuck or hostile browser cannot spend its classmates'
 * address budget.
 */
export const SESSION_BUDGET: BucketSize = { capacity: FLOW * 3, refillPerSecond: FLOW / 60 };

const fromNetwork = (seconds: number) => `Too many verification attempts from your network: please try again in ${waitInWords(seconds)}`;
const fromBrowser = (seconds: number) => `Too many verification attempts from this browser: please try again in ${waitInWords(seconds)}`;

/**
 * The visitor routes' limit, keyed per visitor session and per address (hashed: no raw
 * address is kept). A request spends from its session's bucket (or, without a session, its
 * address's newcomer bucket) and from its address's bucket; refused by either, it spends
 * from neither, so a browser hammering on its own does not drain its address. A request let
 * through without a session is given one (the signed cookie set with the answer).
 */
export function createVisitorLimiter(options: { clock: Clock; addressKey: (req: Request) => string }) {
  const sessions = createTokenBuckets({ ...SESSION_BUDGET, clock: options.clock });
  const newcomers = createTokenBuckets({ ...NEWCOMER_BUDGET, clock: options.clock });
  const addresses = createTokenBuckets({ ...ADDRESS_BUDGET, clock: options.clock });

  const middleware: RequestHandler = (req, _res, next) => {
    const address = options.addressKey(req);
    const id = readVisitorId(req);
    const own = id ? { buckets: sessions, key: id } : { buckets: newcomers, key: address };
    const ownWait = own.buckets.wait(own.key);
    const addressWait = addresses.wait(address);
    if (ownWait > 0 || addressWait > 0) {
      // the longer wait is the true one; the text names whose requests ran out
      next(TooManyRequests(Math.max(ownWait, addressWait), id && ownWait >= addressWait ? fromBrowser : fromNetwork));
      return;
    }
    own.buckets.take(own.key);
    addresses.take(address);
    if (!id) assignVisitorId(req);
    next();
  };
  return { middleware };
}
