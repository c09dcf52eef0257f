export { TRANSPORT_ERROR_CODES } from './transport-error-code.js';
export type { TransportErrorCode } from './transport-error-code.js';
