// The local stack the project starts itself: Temporal dev server, Postgres, MinIO.
export {
  defaultDataDir,
  ensureStack,
  stackStatus,
  stopStack,
  type ServiceStatus,
  type StackEndpoints,
  type StackOptions,
  type StackStatus,
} from './stack.js';
export { StackError, type StackErrorCode, type StackService } from './stack-error.js';
export { ensurePostgresRole, type PostgresRoleOptions, type PostgresRoleOutcome } from './postgres-role.js';
export { defaultSearchAttributes, type SearchAttributeKind } from './temporal-dev-server.js';
export { findTool, projectRoot, type ToolName, type ToolPathOptions } from './tool-paths.js';
export { defaultBucket, defaultRegion } from './external-services.js';
