export { UNTRUSTED_TEXT_MAX_CHARS, escapeJsonLineBreakers, jsonLine, neutralizeText, type NeutralizeTextOptions } from './untrusted-text.js';
