import type { Logger } from './logger';

/**
 * The log's domain events: one plain line at info per thing an operator wants to see happen, one function per
 * event. Members are named by Discord ID only (never an address, a token or typed text); `event` is the same
 * word on every line of its kind, to filter on in the JSON output.
 */

/** A member got full access: on the website (the button still to come), at the button, or from staff. */
export function logVerified(logger: Logger, input: { discordId: string; via: 'website' | 'button' | 'staff' }): void {
  logger.info({ event: 'verified', discordId: input.discordId, via: input.via }, `member ${input.discordId} verified (${input.via})`);
}

/** A member was kept at Limited Access: a VPN, or a server rule. */
export function logLimited(logger: Logger, input: { discordId: string; why: string }): void {
  logger.info({ event: 'limited', discordId: input.discordId, why: input.why }, `member ${input.discordId} limited: ${input.why}`);
}

/** A verification found an alt at medium or certain confidence. */
export function logAltFound(logger: Logger, input: { altId: string; mainId: string; confidence: string }): void {
  logger.info(
    { event: 'alt_found', discordId: input.altId, mainId: input.mainId, confidence: input.confidence },
    `alt found: ${input.altId} is a ${input.confidence}-confidence alt of ${input.mainId}`,
  );
}

/** A member was denied: a certain alt, the VPN policy, or staff's Deny / Kick or Ban. */
export function logDenied(logger: Logger, input: { discordId: string; why: string }): void {
  logger.info({ event: 'denied', discordId: input.discordId, why: input.why }, `member ${input.discordId} denied: ${input.why}`);
}

/** A verification an admission rule (lockdown, account age) holds for staff review. */
export function logHeld(logger: Logger, input: { discordId: string }): void {
  logger.info({ event: 'held', discordId: input.discordId }, `member ${input.discordId} held for staff review`);
}

export function logAppealFiled(logger: Logger, input: { discordId: string; appealId: number }): void {
  logger.info(
    { event: 'appeal_filed', discordId: input.discordId, appealId: input.appealId },
    `appeal #${input.appealId} filed by ${input.discordId}`,
  );
}

export function logAppealDecided(
  logger: Logger,
  input: { discordId: string; appealId: number; decision: 'approved' | 'rejected'; by: string },
): void {
  logger.info(
    { event: 'appeal_decided', discordId: input.discordId, appealId: input.appealId, decision: input.decision, by: input.by },
    `appeal #${input.appealId} of ${input.discordId} ${input.decision} by ${input.by}`,
  );
}

export function logLockdown(logger: Logger, input: { on: boolean; by: string }): void {
  logger.info({ event: input.on ? 'lockdown_on' : 'lockdown_off', by: input.by }, `lockdown ${input.on ? 'on' : 'off'} (${input.by})`);
}

/** The raid alarm went off (its reasons: the rate, young accounts, shared devices or addresses). */
export function logRaidAlarm(logger: Logger, input: { reasons: readonly string[]; lockdownStarted: boolean }): void {
  logger.info(
    { event: 'raid_alarm', reasons: input.reasons, lockdownStarted: input.lockdownStarted },
    `raid alarm (${input.reasons.join(', ')})${input.lockdownStarted ? ': lockdown started' : ''}`,
  );
}

/** Discord rejects the bot token: an error, since nothing reaches Discord until it is fixed. */
export function logDiscordTokenProblem(logger: Logger, input: { message: string; fix: string }): void {
  logger.error({ event: 'discord_token_problem', fix: input.fix }, input.message);
}

/** The bot lacks a permission or a role is placed where it cannot manage it. */
export function logDiscordPermissionProblem(logger: Logger, input: { problem: string; fix: string }): void {
  logger.warn({ event: 'discord_permission_problem', fix: input.fix }, `Discord permission problem: ${input.problem}`);
}
