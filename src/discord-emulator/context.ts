import type { OAuthApplication } from './oauth';
import type { EmulatorState } from './state';

export interface EmulatorApplication {
  id: string;
  name: string;
  clientId: string;
  clientSecret: string;
  botToken: string;
  /** Set by the `revokeBotToken` control: Discord answers 401 to the token (reset in the Developer Portal). */
  botTokenRevoked?: boolean;
  botUserId: string;
  /** Registered OAuth2 redirect URIs; empty = any http(s) URI (sandbox convenience). Mutable. */
  redirectUris: string[];
}

export interface EmulatorSettings {
  /** How long the bot has to answer an interaction before Discord reports "This interaction failed" (Discord: 3 s). */
  interactionAckTimeoutMs: number;
  /** How long an interaction token stays usable for edits and follow-ups (Discord: 15 min). */
  interactionTokenTtlMs: number;
  heartbeatIntervalMs: number;
}

/** What route handlers, the gateway and the HTML pages share. */
export interface EmulatorContext {
  state: EmulatorState;
  application: EmulatorApplication;
  oauthApp: OAuthApplication;
  settings: EmulatorSettings;
  now(): number;
  /** `http://host:port` as bound (for the bot, in-process). */
  internalUrl(): string;
  /** Origin for browser pages (publicUrl option, else internalUrl). */
  publicUrl(): string;
}
