import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { members, verificationAttempts } from '../db/schema';
import type { FingerprintData } from '../shared/fingerprint';
import { computeFingerprintHash, hashFingerprintComponents, looksStock, NO_COMPONENT_HASHES } from '../modules/fingerprint';
import { hashIp } from '../modules/network';
import type { AltDetectionAttempt, AltDetectionService } from '../modules/alts';

export const TEST_IP_KEY = Buffer.alloc(32, 9);

/** A device: every component value carries the device name, so two names share nothing. */
export function device(name: string, overrides: Partial<FingerprintData> = {}): FingerprintData {
  return {
    canvas: `canvas-${name}`,
    webgl: `webgl-${name}`,
    audio: `audio-${name}`,
    screen: `screen-${name}`,
    fonts: `fonts-${name}`,
    timezone: `timezone-${name}`,
    language: `language-${name}`,
    platform: `platform-${name}`,
    hardware: `hardware-${name}`,
    ...overrides,
  };
}

/** The evidence the verification flow stores for a visit from `ip` with `fingerprint`. */
export function evidenceOf(ip: string, fingerprint: FingerprintData): AltDetectionAttempt & { hardwareHash: string | null } {
  // whether the profile looks stock is judged at consent from the collected values, as here
  return {
    ...hashIp(TEST_IP_KEY, ip),
    fingerprintHash: computeFingerprintHash(fingerprint),
    ...hashFingerprintComponents(fingerprint),
    stockProfile: looksStock(fingerprint),
  };
}

/** What a Limited Access (VPN) attempt stores: nothing that identifies a device or address. */
export const LIMITED_EVIDENCE = { ipHash: null, networkHash: null, fingerprintHash: null, ...NO_COMPONENT_HASHES };

export interface VisitOptions {
  discordId: string;
  username?: string;
  ip?: string;
  fingerprint?: FingerprintData;
  /** a VPN visit: Limited Access, no hashes kept */
  vpn?: boolean;
  at: Date;
}

/**
 * The server side of one verification, as the verification flow does it, in one transaction:
 * upsert the member (verificationCount + 1), insert the attempt, detect alts.
 */
export async function visit(db: Executor, service: AltDetectionService, options: VisitOptions) {
  return db.transaction(async (tx) => {
    const evidence = options.vpn || !options.ip || !options.fingerprint ? LIMITED_EVIDENCE : evidenceOf(options.ip, options.fingerprint);
    const status = options.vpn ? ('limited_access' as const) : ('verified' as const);
    const [member] = await tx
      .insert(members)
      .values({
        discordId: options.discordId,
        username: options.username ?? `user-${options.discordId}`,
        avatarUrl: `https://cdn.example/${options.discordId}.png`,
        status,
        verificationCount: 1,
        fingerprintHash: evidence.fingerprintHash,
        networkHash: evidence.networkHash,
        createdAt: options.at,
        verifiedAt: options.at,
        updatedAt: options.at,
      })
      .onConflictDoUpdate({
        target: members.discordId,
        set: { verificationCount: sql`${members.verificationCount} + 1`, status, lastSeenAt: options.at },
      })
      .returning();
    await tx.insert(verificationAttempts).values({
      memberId: member!.id,
      ...evidence,
      accountCreatedAt: sql`discord_account_created_at(${member!.discordId}::text)`,
      outcome: status,
      vpnVerdict: options.vpn ? 'vpn' : 'clean',
      createdAt: options.at,
    });
    const result = await service.detectAlts(tx, {
      member: { id: member!.id, discordId: member!.discordId, createdAt: member!.createdAt },
      attempt: evidence,
    });
    return { member: member!, result };
  });
}

export async function memberByDiscordId(db: Executor, discordId: string) {
  const [row] = await db.select().from(members).where(eq(members.discordId, discordId));
  if (!row) throw new Error(`no member ${discordId}`);
  return row;
}
