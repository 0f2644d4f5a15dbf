import type { Database } from '../../db/client';
import { withAuditNames } from './audit-names.repository';
import { listAudit, verifyAuditChainSinceCheckpoint, type AuditQuery } from './audit.repository';

/** The audit log as super admins read it: one page, newest first, each entry with the names its sentence uses, and the hash chain's verdict. */
export function createAuditLogService(deps: { database: Database }) {
  async function page(query: AuditQuery) {
    const { db } = deps.database;
    // verifying seals what is pending first, so the page lists sealed rows (a row committed
    // in between is listed with sealSeq null: pending seal); only rows after the stored
    // checkpoint are walked here, the hourly job walks the whole chain
    const chain = await verifyAuditChainSinceCheckpoint(db);
    const found = await listAudit(db, query);
    return { entries: await withAuditNames(db, found.entries), nextCursor: found.nextCursor, chain };
  }
  return { page };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;
