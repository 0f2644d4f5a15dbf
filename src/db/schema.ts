import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { MEMBER_FILTER_INDEXES, memberFilterSql } from './member-filters';

/**
 * The whole data model. One schema for PGlite and the PostgreSQL server; the SQL in
 * ./migrations is generated from it by drizzle-kit (plus a custom first migration
 * that enables pg_trgm). Column names are snake_case in SQL and camelCase here.
 *
 * Personal-data rules (docs/behaviour.md#personal-data-and-retention): no raw IP, token, password or secret is ever
 * stored. IPs are kept only as keyed hashes; the one Discord access token the outbox
 * needs (to add a member to the guild) is stored encrypted with a key outside the
 * database and wiped as soon as the action ends. With Linked Roles on, a verified member's
 * OAuth tokens for their role connection are kept the same way (role_connection_grants),
 * and go with the member's record.
 */

const id = () => bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity();
const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const MEMBER_STATUSES = ['verified', 'limited_access'] as const;
export const MANUAL_ALT_STATUSES = ['suspected_alt', 'certain_alt'] as const;
/** Where the member stands in Discord: the roles the bot has granted (or refused). */
export const GUILD_ACCESS = ['pending', 'verified', 'limited', 'denied'] as const;
export const MEMBER_SOURCES = ['web', 'manual'] as const;
export const GATE_ACTIONS = ['limited', 'review'] as const;

export const members = pgTable(
  'members',
  {
    id: id(),
    discordId: text('discord_id').notNull(),
    username: text('username').notNull(),
    avatarUrl: text('avatar_url'),
    status: text('status', { enum: MEMBER_STATUSES }).notNull().default('verified'),
    source: text('source', { enum: MEMBER_SOURCES }).notNull().default('web'),
    rulesConfirmed: boolean('rules_confirmed').notNull().default(false),
    rulesConfirmedAt: ts('rules_confirmed_at'),
    manualAltStatus: text('manual_alt_status', { enum: MANUAL_ALT_STATUSES }),
    isLinkedAsAlt: boolean('is_linked_as_alt').notNull().default(false),
    altsFound: integer('alts_found').notNull().default(0),
    usedVpn: boolean('used_vpn').notNull().default(false),
    vpnAttempts: integer('vpn_attempts').notNull().default(0),
    vpnProvider: text('vpn_provider'),
    verificationCount: integer('verification_count').notNull().default(0),
    /** latest device fingerprint hash (32 hex), null for Limited Access records */
    fingerprintHash: text('fingerprint_hash'),
    /** latest network hash, kept so staff can mark the member's network as shared */
    networkHash: text('network_hash'),
    guildAccess: text('guild_access', { enum: GUILD_ACCESS }).notNull().default('pending'),
    verifiedAt: ts('verified_at').notNull().defaultNow(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    /** an admission rule (account-age gate, lockdown) applied at the last verification: 'limited' or 'review' (held until staff release) */
    gateAction: text('gate_action', { enum: GATE_ACTIONS }),
    /** why, in words staff and the visitor are shown */
    gateReason: text('gate_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('members_discord_id_key').on(t.discordId),
    index('members_username_trgm_idx').using('gin', sql`${t.username} gin_trgm_ops`),
    index('members_discord_id_trgm_idx').using('gin', sql`${t.discordId} gin_trgm_ops`),
    index('members_verified_at_id_idx').on(t.verifiedAt.desc(), t.id.desc()),
    // the narrow list filters, each with the predicate of its filter (member-filters.ts)
    index(MEMBER_FILTER_INDEXES.unverified).on(t.verifiedAt.desc(), t.id.desc()).where(memberFilterSql(t).unverified),
    index(MEMBER_FILTER_INDEXES.certain_alts).on(t.verifiedAt.desc(), t.id.desc()).where(memberFilterSql(t).certain_alts),
    index('members_last_seen_at_idx').on(t.lastSeenAt),
    index('members_network_hash_idx').on(t.networkHash),
    // the members held for review (few): the bulk release and the dashboard's count
    index('members_held_idx')
      .on(t.id)
      .where(sql`${t.gateAction} = 'review'`),
    check('members_gate_action_check', sql`${t.gateAction} is null or ${t.gateAction} in ('limited', 'review')`),
    check('members_status_check', sql`${t.status} in ('verified', 'limited_access')`),
    check('members_manual_alt_status_check', sql`${t.manualAltStatus} is null or ${t.manualAltStatus} in ('suspected_alt', 'certain_alt')`),
    check('members_guild_access_check', sql`${t.guildAccess} in ('pending', 'verified', 'limited', 'denied')`),
    check('members_counters_check', sql`${t.altsFound} >= 0 and ${t.vpnAttempts} >= 0 and ${t.verificationCount} >= 0`),
  ],
);

export const VPN_VERDICTS = ['clean', 'vpn', 'proxy', 'tor', 'datacenter', 'unknown'] as const;
export const ATTEMPT_OUTCOMES = ['verified', 'limited_access', 'denied'] as const;
/** how a verification ended beyond its VPN outcome: see verificationAttempts.endedAs */
export const ATTEMPT_ENDINGS = ['denied_alt', 'pending'] as const;

/** One completed sign-in: the evidence alt detection works from. */
export const verificationAttempts = pgTable(
  'verification_attempts',
  {
    id: id(),
    memberId: bigint('member_id', { mode: 'number' })
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    /** HMAC-SHA256 of the client IP; null for Limited Access attempts */
    ipHash: text('ip_hash'),
    /** HMAC-SHA256 of the /24 (IPv4) or /64 (IPv6) prefix */
    networkHash: text('network_hash'),
    fingerprintHash: text('fingerprint_hash'),
    canvasHash: text('canvas_hash'),
    webglHash: text('webgl_hash'),
    audioHash: text('audio_hash'),
    fontsHash: text('fonts_hash'),
    screenHash: text('screen_hash'),
    timezoneHash: text('timezone_hash'),
    languageHash: text('language_hash'),
    platformHash: text('platform_hash'),
    hardwareHash: text('hardware_hash'),
    /** HMAC-SHA256 of the browser profile's first-party random token (src/modules/browser-token); null when none was sent or kept */
    browserTokenHash: text('browser_token_hash'),
    vpnVerdict: text('vpn_verdict', { enum: VPN_VERDICTS }).notNull().default('clean'),
    vpnProvider: text('vpn_provider'),
    vpnSource: text('vpn_source'),
    /** browser timezone disagrees with the IP's country: a weak flag for staff */
    timezoneMismatch: boolean('timezone_mismatch').notNull().default(false),
    /** the provider could not be asked and the failure policy decided */
    vpnCheckFailed: boolean('vpn_check_failed').notNull().default(false),
    outcome: text('outcome', { enum: ATTEMPT_OUTCOMES }).notNull(),
    /**
     * Set in the verification's own transaction when it did not end at its outcome's access:
     * 'denied_alt' when the member's standing was certain alt after it (the button denies
     * them), else 'pending' when an admission rule held them for staff review; null otherwise.
     */
    endedAs: text('ended_as', { enum: ATTEMPT_ENDINGS }),
    /**
     * When the Discord account was created (the snowflake's timestamp: discord_account_created_at in
     * src/db/functions), kept on the attempt so the raid window counts young accounts without reading
     * the members table; null when the member's id is not a snowflake (never young).
     */
    accountCreatedAt: ts('account_created_at'),
    /**
     * The profile looked like a stock phone at consent (`looksStock`, judged from the collected
     * values, which are never stored): the new-server prior reads it when re-scoring links on a
     * server too small to judge rarity. Null for attempts stored before it was kept and for Limited
     * Access (nothing kept): unknown, which the prior treats as stock.
     */
    stockProfile: boolean('stock_profile'),
    createdAt: createdAt(),
  },
  (t) => [
    index('attempts_member_id_idx').on(t.memberId),
    // (hash, id, member_id): alt detection reads the newest N attempts of other members per hash
    // with an index-only backward range scan, however popular the hash (alt-candidates.repository.ts)
    index('attempts_ip_hash_idx').on(t.ipHash, t.id, t.memberId),
    // carries the high-entropy components: the alt lookup's same-network branch filters on them index-only
    index('attempts_network_hash_idx').on(t.networkHash, t.id, t.memberId, t.canvasHash, t.webglHash, t.audioHash, t.fontsHash),
    index('attempts_fingerprint_hash_idx').on(t.fingerprintHash, t.id, t.memberId),
    index('attempts_canvas_hash_idx').on(t.canvasHash, t.id, t.memberId),
    index('attempts_webgl_hash_idx').on(t.webglHash, t.id, t.memberId),
    index('attempts_audio_hash_idx').on(t.audioHash, t.id, t.memberId),
    index('attempts_fonts_hash_idx').on(t.fontsHash, t.id, t.memberId),
    // the same-browser branch of the alt lookup and the count of networks a token was seen on, index-only
    index('attempts_browser_token_hash_idx').on(t.browserTokenHash, t.id, t.memberId, t.networkHash),
    index('attempts_created_at_idx').on(t.createdAt),
    // the statistics page's per-day counts: an index-only range scan over the period
    index('attempts_created_at_outcome_idx').on(t.createdAt, t.outcome, t.vpnVerdict, t.vpnProvider),
    // the few attempts that ended denied or held, for the same counts (a small index: most attempts have none)
    index('attempts_created_at_ended_as_idx')
      .on(t.createdAt, t.outcome, t.endedAs)
      .where(sql`${t.endedAs} is not null`),
    check('attempts_outcome_check', sql`${t.outcome} in ('verified', 'limited_access', 'denied')`),
    check('attempts_ended_as_check', sql`${t.endedAs} is null or ${t.endedAs} in ('denied_alt', 'pending')`),
    check('attempts_vpn_verdict_check', sql`${t.vpnVerdict} in ('clean', 'vpn', 'proxy', 'tor', 'datacenter', 'unknown')`),
  ],
);

export const ALT_CONFIDENCES = ['certain', 'medium', 'possible'] as const;
export const DETECTION_METHODS = ['ip', 'fingerprint', 'both', 'network', 'browser', 'manual'] as const;

/** A suspected link between two accounts: the older one is the main. */
export const altLinks = pgTable(
  'alt_links',
  {
    id: id(),
    mainMemberId: bigint('main_member_id', { mode: 'number' })
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    altMemberId: bigint('alt_member_id', { mode: 'number' })
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    confidence: text('confidence', { enum: ALT_CONFIDENCES }).notNull(),
    detectionMethod: text('detection_method', { enum: DETECTION_METHODS }).notNull(),
    /** {components: {canvas: true, …}, ipMatch, networkMatch, fingerprintMatch, score} */
    evidence: jsonb('evidence').notNull().default({}),
    /**
     * Staff said "Not the same person": a dismissed link counts nowhere (counters, standing,
     * badges, filters, the button) and no detection re-creates or changes it; its evidence
     * stays listed. Null while the link is open (never dismissed, or reopened).
     */
    dismissedAt: ts('dismissed_at'),
    dismissedByStaffId: bigint('dismissed_by_staff_id', { mode: 'number' }).references(() => staff.id, { onDelete: 'set null' }),
    /** who dismissed it, as named then (kept when the staff account is deleted, or for a Discord actor) */
    dismissedByName: text('dismissed_by_name'),
    dismissReason: text('dismiss_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('alt_links_pair_key').on(t.mainMemberId, t.altMemberId),
    index('alt_links_alt_member_id_idx').on(t.altMemberId),
    // the statistics page's per-day counts by confidence
    index('alt_links_created_at_confidence_idx').on(t.createdAt, t.confidence),
    check('alt_links_not_self', sql`${t.mainMemberId} <> ${t.altMemberId}`),
    check('alt_links_confidence_check', sql`${t.confidence} in ('certain', 'medium', 'possible')`),
  ],
);

export const adminNotes = pgTable(
  'admin_notes',
  {
    id: id(),
    memberId: bigint('member_id', { mode: 'number' })
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    note: text('note').notNull(),
    authorStaffId: bigint('author_staff_id', { mode: 'number' }).references(() => staff.id, { onDelete: 'set null' }),
    authorName: text('author_name'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('admin_notes_member_id_idx').on(t.memberId, t.createdAt.desc())],
);

export const staff = pgTable(
  'staff',
  {
    id: id(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    isSuperAdmin: boolean('is_super_admin').notNull().default(false),
    /** the protected owner account created by /setup: never demoted, deleted or changed by others */
    isOwner: boolean('is_owner').notNull().default(false),
    discordId: text('discord_id'),
    /** bumped to end every session of this account at once */
    sessionEpoch: integer('session_epoch').notNull().default(0),
    failedLoginCount: integer('failed_login_count').notNull().default(0),
    lastFailedLoginAt: ts('last_failed_login_at'),
    lastLoginAt: ts('last_login_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('staff_username_lower_key').on(sql`lower(${t.username})`),
    uniqueIndex('staff_single_owner_key')
      .on(t.isOwner)
      .where(sql`${t.isOwner}`),
  ],
);

export const APPEAL_STATUSES = ['open', 'approved', 'rejected'] as const;
/** the standings a visitor may appeal: denied as a certain alt, or kept at Limited Access */
export const APPEALABLE_STANDINGS = ['certain_alt', 'limited'] as const;

/**
 * A visitor's request that staff review a denial or Limited Access
 * (docs/behaviour.md#appeals). Deleted with the member (cascade), so it lives exactly as
 * long as the member's record; at most one open appeal per member.
 */
export const appeals = pgTable(
  'appeals',
  {
    id: id(),
    memberId: bigint('member_id', { mode: 'number' })
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    /** the visitor's own words, plain text (never rendered as HTML) */
    message: text('message').notNull(),
    status: text('status', { enum: APPEAL_STATUSES }).notNull().default('open'),
    /** the member's standing when the appeal was filed */
    standing: text('standing', { enum: APPEALABLE_STANDINGS }).notNull(),
    decidedByStaffId: bigint('decided_by_staff_id', { mode: 'number' }).references(() => staff.id, { onDelete: 'set null' }),
    decidedByName: text('decided_by_name'),
    /** on a rejection: the reason, which the visitor sees */
    decisionReason: text('decision_reason'),
    createdAt: createdAt(),
    decidedAt: ts('decided_at'),
    /** on an approval: what it did (the alt links it dismissed, the status it cleared, the roles it changed), see AppealOutcome */
    outcome: jsonb('outcome'),
  },
  (t) => [
    uniqueIndex('appeals_one_open_per_member_key')
      .on(t.memberId)
      .where(sql`${t.status} = 'open'`),
    // the staff queue: open appeals, oldest first
    index('appeals_open_queue_idx')
      .on(t.createdAt, t.id)
      .where(sql`${t.status} = 'open'`),
    index('appeals_member_id_idx').on(t.memberId, t.createdAt.desc()),
    // the statistics page's appeals per day: filed by created_at, decided by decided_at, each an index-only range scan
    index('appeals_created_at_idx').on(t.createdAt),
    index('appeals_decided_at_status_idx')
      .on(t.decidedAt, t.status)
      .where(sql`${t.decidedAt} is not null`),
    check('appeals_status_check', sql`${t.status} in ('open', 'approved', 'rejected')`),
    check('appeals_standing_check', sql`${t.standing} in ('certain_alt', 'limited')`),
    check('appeals_message_length_check', sql`char_length(${t.message}) between 1 and 1000`),
  ],
);

/** Login throttling buckets keyed by 'user:<name>', 'ip:<hash>' or 'pair:<name>:<hash>'. */
export const loginThrottle = pgTable('login_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  windowStartedAt: ts('window_started_at').notNull().defaultNow(),
  blockedUntil: ts('blocked_until'),
});

export const AUDIT_ACTOR_TYPES = ['staff', 'discord', 'system', 'visitor'] as const;

/** Append-only (a trigger refuses UPDATE and DELETE); each row carries the previous row's hash. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: id(),
    at: ts('at').notNull().defaultNow(),
    actorType: text('actor_type', { enum: AUDIT_ACTOR_TYPES }).notNull(),
    actorId: text('actor_id'),
    actorName: text('actor_name'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    details: jsonb('details').notNull().default({}),
    /** SHA-256 of the row's canonical content, computed when it is appended (null on rows older than sealing) */
    contentHash: text('content_hash'),
    /** position in the chain, given by the sealer after the row committed; null until then */
    sealSeq: bigint('seal_seq', { mode: 'number' }),
    /** the previous sealed row's hash and this row's chain hash: null until sealed */
    prevHash: text('prev_hash'),
    hash: text('hash'),
  },
  (t) => [
    index('audit_log_at_idx').on(t.at.desc()),
    index('audit_log_action_idx').on(t.action),
    index('audit_log_actor_idx').on(t.actorId),
    index('audit_log_target_idx').on(t.targetId),
    uniqueIndex('audit_log_seal_seq_idx').on(t.sealSeq),
    index('audit_log_unsealed_idx')
      .on(t.id)
      .where(sql`seal_seq is null`),
    check('audit_log_sealed_whole', sql`(seal_seq is null) = (hash is null) and (hash is null) = (prev_hash is null)`),
  ],
);

/** The audit chain's last verified point (one row), so a page view verifies only what was sealed since. */
export const auditChainCheckpoint = pgTable('audit_chain_checkpoint', {
  one: boolean('one').primaryKey().default(true),
  sealSeq: bigint('seal_seq', { mode: 'number' }).notNull(),
  rowId: bigint('row_id', { mode: 'number' }).notNull(),
  hash: text('hash').notNull(),
  /** id of the first row found altered: once set, the chain stays reported broken */
  brokenAt: bigint('broken_at', { mode: 'number' }),
  verifiedAt: ts('verified_at').notNull().defaultNow(),
});

/** VPN/proxy verdicts by IP hash, so a raid cannot exhaust the provider quota. */
export const vpnCache = pgTable(
  'vpn_cache',
  {
    ipHash: text('ip_hash').primaryKey(),
    verdict: text('verdict', { enum: VPN_VERDICTS }).notNull(),
    provider: text('provider'),
    countryCode: text('country_code'),
    source: text('source').notNull(),
    checkedAt: ts('checked_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('vpn_cache_expires_at_idx').on(t.expiresAt)],
);

export const OUTBOX_KINDS = [
  'add_guild_member',
  'add_role',
  'remove_role',
  'update_roles',
  'kick',
  'ban',
  'unban',
  'log_message',
  'incident_actions',
  'role_connection',
  'verification_level',
] as const;
export const OUTBOX_STATUSES = ['pending', 'running', 'done', 'failed'] as const;
/**
 * The outbox's priorities, first served first: a member waiting in front of a button (their role change,
 * and every earlier unfinished action of theirs it waits for) before bulk work (joins from the website,
 * log lines, staff batches). Stored as the number each one's position here gives.
 */
export const OUTBOX_PRIORITIES = ['interactive', 'bulk'] as const;

/** Discord side effects written with the decision that causes them, run with retries. */
export const discordOutbox = pgTable(
  'discord_outbox',
  {
    id: id(),
    kind: text('kind', { enum: OUTBOX_KINDS }).notNull(),
    discordId: text('discord_id'),
    payload: jsonb('payload').notNull().default({}),
    /** AES-256-GCM ciphertext of a visitor access token (add_guild_member only); wiped when done */
    sealedSecret: text('sealed_secret'),
    status: text('status', { enum: OUTBOX_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(12),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    lockedUntil: ts('locked_until'),
    lastError: text('last_error'),
    dedupeKey: text('dedupe_key'),
    /** position in OUTBOX_PRIORITIES: 0 interactive, 1 bulk (the claim serves 0 first) */
    priority: smallint('priority').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    // the claim reads each kind's unfinished actions in priority, then queue order (outbox.repository.ts, claimQuery)
    index('discord_outbox_claim_idx')
      .on(t.kind, t.priority, t.nextAttemptAt, t.id)
      .where(sql`${t.status} in ('pending', 'running')`),
    index('discord_outbox_status_idx').on(t.status, t.updatedAt.desc()),
    index('discord_outbox_discord_id_idx').on(t.discordId),
    uniqueIndex('discord_outbox_dedupe_key')
      .on(t.dedupeKey)
      .where(sql`${t.status} in ('pending', 'running')`),
    check('discord_outbox_status_check', sql`${t.status} in ('pending', 'running', 'done', 'failed')`),
  ],
);

/** Networks staff marked as shared (household, school, carrier NAT): IP-only matches there stop counting. */
export const sharedNetworks = pgTable('shared_networks', {
  networkHash: text('network_hash').primaryKey(),
  label: text('label'),
  markedBy: text('marked_by'),
  createdAt: createdAt(),
});

/**
 * Used single-use visitor tokens (consent tokens, OAuth state): a token is signed, not stored, when
 * issued; its first use inserts its hash here, which is what stops a second (`one-time-tokens.repository.ts`).
 * `used_at` is always set now (rows written before the change kept unused tokens, which no longer verify).
 */
export const oneTimeTokens = pgTable(
  'one_time_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    purpose: text('purpose').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('one_time_tokens_expires_at_idx').on(t.expiresAt)],
);

/**
 * Where each Discord sign-in's callback ended, by the SHA-256 of its OAuth state (never the code or a
 * token): the same callback again, on any web process, lands on the same result, or waits for the
 * first while `outcome` is still null (callback-outcomes.repository.ts). `callback_hash` (state and
 * code hashed) tells the same callback from another code sent with a used state. Rows live minutes:
 * the retention job deletes them once `expires_at` passed.
 */
export const signInCallbacks = pgTable(
  'sign_in_callbacks',
  {
    stateHash: text('state_hash').primaryKey(),
    callbackHash: text('callback_hash').notNull(),
    /** 'visitor' (the verification sign-in) or 'appeal' (the appeal page's identify-only sign-in) */
    kind: text('kind').notNull(),
    /** the sign-in's result once it ended; null while the first callback is still at work */
    outcome: jsonb('outcome'),
    /** past this with no outcome, the process that took the callback is taken to have died with it */
    runningUntil: ts('running_until').notNull(),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('sign_in_callbacks_expires_at_idx').on(t.expiresAt)],
);

/** Small runtime state: the verification panel message id, resolved channel ids, etc. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: updatedAt(),
});

/** A raid alarm: the numbers that crossed the thresholds when it was raised. */
export const raidAlarms = pgTable(
  'raid_alarms',
  {
    id: id(),
    raisedAt: ts('raised_at').notNull(),
    windowMinutes: integer('window_minutes').notNull(),
    verifications: integer('verifications').notNull(),
    /** the average count of one window over the previous 24 hours, times 100 */
    baselineX100: integer('baseline_x100').notNull(),
    youngPercent: integer('young_percent').notNull(),
    sharedPercent: integer('shared_percent').notNull(),
    /** which thresholds were crossed: rate, young, shared */
    reasons: jsonb('reasons').notNull().default([]),
    lockdownStarted: boolean('lockdown_started').notNull().default(false),
  },
  (t) => [index('raid_alarms_raised_at_idx').on(t.raisedAt)],
);

/**
 * The statistics page's counts of UTC days, and of the current day's hours, that are over:
 * a period's numbers are then read from a few hundred rows plus the last hour's attempts
 * instead of every attempt. A day (an hour) is written once, the first time a page asks
 * for it after it ended; a marker row (series 'day' / 'hour', key '') says it is written,
 * so one with nothing in it is not counted again. Counts only: no member, address or
 * device is in them, so they outlive the attempts retention deletes.
 */
export const statisticsDays = pgTable(
  'statistics_days',
  {
    day: date('day', { mode: 'string' }).notNull(),
    /** 'day' (the marker), 'outcome', 'vpn' ('attempts' / 'vpn'), 'vpn_provider', 'alt_confidence', 'appeal' ('submitted' / 'approved' / 'rejected') */
    series: text('series').notNull(),
    key: text('key').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.series, t.key] })],
);

/** The same counts per hour, for the current day only (older hours are deleted once their day is written). */
export const statisticsHours = pgTable(
  'statistics_hours',
  {
    hour: timestamp('hour', { withTimezone: true, mode: 'string' }).notNull(),
    /** 'hour' (the marker) or a series of statistics_days */
    series: text('series').notNull(),
    key: text('key').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.hour, t.series, t.key] })],
);

export const schema = {
  members,
  verificationAttempts,
  altLinks,
  adminNotes,
  staff,
  loginThrottle,
  auditLog,
  auditChainCheckpoint,
  vpnCache,
  discordOutbox,
  sharedNetworks,
  oneTimeTokens,
  settings,
  raidAlarms,
  appeals,
  statisticsDays,
  statisticsHours,
};

/**
 * A verified member's grant for their Linked Roles connection (scope role_connections.write): the
 * tokens that let Gatekeeper update "Verified with Gatekeeper" after later decisions. Both are
 * AES-256-GCM ciphertexts (the outbox key, outside the database); the row goes with the member's
 * record (deletion, retention) and when Discord says the member revoked the app.
 */
export const roleConnectionGrants = pgTable('role_connection_grants', {
  discordId: text('discord_id')
    .primaryKey()
    .references(() => members.discordId, { onDelete: 'cascade' }),
  sealedRefreshToken: text('sealed_refresh_token').notNull(),
  sealedAccessToken: text('sealed_access_token').notNull(),
  accessExpiresAt: ts('access_expires_at').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
