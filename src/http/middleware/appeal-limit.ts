import type { BucketSize } from './rate-limit';

/**
 * Appeals, per member (or per address without a sign-in): three in a row, then one every ten
 * minutes. Enough to fix a typo or try again after an error; not enough to flood the queue.
 */
export const APPEAL_BUDGET: BucketSize = { capacity: 3, refillPerSecond: 1 / (10 * 60) };
