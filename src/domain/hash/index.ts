export { sha256Bytes, sha256Hex, bytesToHex } from './sha256.js';
export { encodeUtf8, hasLoneSurrogate } from './utf8.js';
