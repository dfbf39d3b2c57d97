export { connectDatabase, pingDatabase, type Database, type DatabaseConnection, type Schema } from './client.js';
export { migrateDatabase, MIGRATIONS_FOLDER } from './migrate.js';
export * as schema from './schema/index.js';
