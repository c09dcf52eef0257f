// The local stack the project starts itself: Temporal dev server, Postgres, MinIO.
export { ensureStack, stopStack, type StackEndpoints, type StackOptions } from './stack.js';
export { defaultDataDir, stackStatus, type ServiceStatus, type StackStatus } from './stack-status.js';
export { StackError, type StackErrorCode, type StackService } from './stack-error.js';
export { ensurePostgresRole, type PostgresRoleOptions, type PostgresRoleOutcome } from './postgres-role.js';
export { defaultSearchAttributes, type SearchAttributeKind } from './temporal-dev-server.js';
export { findTool, projectRoot, type ToolName, type ToolPathOptions } from './tool-paths.js';
export { defaultBucket, defaultRegion } from './external-services.js';
