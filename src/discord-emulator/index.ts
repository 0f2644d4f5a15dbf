export { createDiscordEmulator, type DiscordEmulator, type DiscordEmulatorOptions } from './emulator';
export type { ClickButtonInput, SlashCommandInput, SlashOptionValue } from './interaction-driver';
export type { InteractionRecord, InteractionResult, WaitOptions } from './interaction-record';
export type { FaultMode, FaultOptions } from './faults';
export { DISCORD_RATE_LIMITS, type BucketLimit, type BucketName, type RateLimitConfig, type RateLimitOption } from './rate-limiter';
export { DISCORD_INVALID_REQUEST_BAN, type InvalidRequestLimitOption } from './invalid-request-limit';
export type { AuditEntry, EmulatorState, MemberRecord, RequestFilter, RequestLogEntry, UserRecord } from './state';
export { BOT_ROLE_PERMISSIONS, SANDBOX_CHANNELS, SANDBOX_ROLES, type SeedName } from './seed';
export { sandboxChannelPath } from './sandbox-view';
export { generateSnowflake } from './snowflake';
export {
  createEmulatorRest,
  DEFAULT_TEST_INTENTS,
  emulatorClientOptions,
  loginEmulatorClient,
  realmSafeMakeRequest,
} from './emulator-clients';
export { setOpenApiViolationSink, type OpenApiViolation, type OpenApiViolationSink } from './openapi-check/violations';
export {
  computeBasePermissions,
  computeChannelPermissions,
  highestRolePosition,
  permissionNames,
  type GuildPermissionContext,
  type PermissionSubject,
} from './permissions';
