import { AppError } from '../../errors';

/**
 * A wait as the page says it and as Retry-After says it, rounded up together so the two
 * agree: up to 90 seconds in seconds, longer in whole minutes.
 */
export function waitOf(ms: number): { seconds: number; text: string } {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds <= 90) return { seconds, text: seconds === 1 ? '1 second' : `${seconds} seconds` };
  const minutes = Math.ceil(seconds / 60);
  return { seconds: minutes * 60, text: `${minutes} minutes` };
}

const THROTTLE_REASONS = {
  pair: 'Too many failed sign-ins for this username from your address.',
  device: 'Too many failed sign-ins for this username from this browser.',
  client: 'Too many failed sign-ins from your address.',
  global: 'Sign-in is paused after many failed attempts from many places. Staff who signed in from this address before can still sign in.',
  flood:
    'Sign-in is paused after a flood of sign-ins from unknown places. Staff who signed in from this browser or address before can still sign in.',
  own_password: 'Too many wrong current passwords.',
} as const;

export type ThrottleReason = keyof typeof THROTTLE_REASONS;

/** The 429 a refused sign-in (or current-password check) answers: the reason and the wait, which Retry-After repeats. */
export function throttledError(reason: ThrottleReason, retryAfterMs: number): AppError {
  const wait = waitOf(retryAfterMs);
  return new AppError(429, 'rate_limited', `${THROTTLE_REASONS[reason]} Try again in ${wait.text}.`, undefined, {
    'Retry-After': String(wait.seconds),
  });
}
