import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate --config src/db/drizzle.config.ts` writes a new migration from schema.ts.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './src/db/migrations',
  casing: 'snake_case',
});
