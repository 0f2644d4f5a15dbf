import { checkRenderingAgainstDrizzle } from '../db/sql-render';

// Every statement the integration tests build is rendered by Drizzle as well, and a difference
// fails the test that built it (src/db/sql-render.ts).
checkRenderingAgainstDrizzle(true);
