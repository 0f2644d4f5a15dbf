import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { sharedNetworks } from '../../db/schema';

/** A network staff marked as shared (household, school, carrier NAT): IP-only matches there stop counting. */
export interface SharedNetwork {
  networkHash: string;
  label: string | null;
  markedBy: string | null;
  createdAt: Date;
}

export async function isSharedNetwork(ex: Executor, networkHash: string | null): Promise<boolean> {
  if (networkHash === null) return false;
  const [row] = await ex
    .select({ networkHash: sharedNetworks.networkHash })
    .from(sharedNetworks)
    .where(eq(sharedNetworks.networkHash, networkHash))
    .limit(1);
  return row !== undefined;
}

/** The marking of one network, or null when it is not marked. */
export async function findSharedNetwork(ex: Executor, networkHash: string | null): Promise<SharedNetwork | null> {
  if (networkHash === null) return null;
  const [row] = await ex.select().from(sharedNetworks).where(eq(sharedNetworks.networkHash, networkHash)).limit(1);
  return row ?? null;
}

/** Idempotent: marking a marked network again keeps the first label and author. True when this call marked it. */
export async function markSharedNetwork(
  ex: Executor,
  input: { networkHash: string; label?: string | null; markedBy?: string | null; now: Date },
): Promise<boolean> {
  const inserted = await ex
    .insert(sharedNetworks)
    .values({ networkHash: input.networkHash, label: input.label ?? null, markedBy: input.markedBy ?? null, createdAt: input.now })
    .onConflictDoNothing({ target: sharedNetworks.networkHash })
    .returning({ networkHash: sharedNetworks.networkHash });
  return inserted.length > 0;
}

/** True when the network was marked. */
export async function unmarkSharedNetwork(ex: Executor, networkHash: string): Promise<boolean> {
  const deleted = await ex
    .delete(sharedNetworks)
    .where(eq(sharedNetworks.networkHash, networkHash))
    .returning({ networkHash: sharedNetworks.networkHash });
  return deleted.length > 0;
}

export async function listSharedNetworks(ex: Executor): Promise<SharedNetwork[]> {
  return ex.select().from(sharedNetworks).orderBy(asc(sharedNetworks.createdAt));
}

export interface SharedNetworkRepository {
  isShared: typeof isSharedNetwork;
  find: typeof findSharedNetwork;
  mark: typeof markSharedNetwork;
  unmark: typeof unmarkSharedNetwork;
  list: typeof listSharedNetworks;
}

export const sharedNetworkRepository: SharedNetworkRepository = {
  isShared: isSharedNetwork,
  find: findSharedNetwork,
  mark: markSharedNetwork,
  unmark: unmarkSharedNetwork,
  list: listSharedNetworks,
};
