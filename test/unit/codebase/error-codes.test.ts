// One error-code convention: an error's `code` is a module prefix and upper snake case
// (HTTP_CONNECT_TIMEOUT, STACK_TOOL_MISSING), as undici's UND_ERR_*. Failure types (the retry
// table's ConnectionFailed) and recorded reasons (a refused URL's `deny-prefix`, stored in
// Postgres) are other vocabularies: CONTRIBUTING.md, "Errors".
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRANSPORT_ERROR_CODES } from '../../../src/domain/failures/index.js';

const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * Codes that are also data: stored with the records they explain and counted by, so a rename
 * would split one reason in two across old and new rows. They keep their recorded spelling.
 */
const RECORDED_REASONS: Record<string, string> = {
  UrlRejectionCode: 'a refused URL\'s reason, stored in crawl_rejections and counted per crawl by it',
};

const sources = sourceFiles('src').map((file) => ({ file, text: readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '') }));

function literalsOf(declaration: string): string[] {
  return [...declaration.matchAll(/'([^']*)'/g)].map((literal) => literal[1]!);
}

/**
 * The codes errors carry: the literals of each type an error's `readonly code: TypeName` names,
 * and of `readonly code: 'A' | 'B'` / `readonly code = 'A'` written inline.
 */
function declaredCodes(): { file: string; code: string }[] {
  const typeNames = new Set(sources.flatMap(({ text }) => [...text.matchAll(/readonly code: ([A-Z]\w*)/g)].map((match) => match[1]!).filter((name) => !(name in RECORDED_REASONS))));
  const typed = sources.flatMap(({ file, text }) =>
    [...text.matchAll(/export type (\w+) =([^;]+);/g)].filter((match) => typeNames.has(match[1]!)).flatMap((match) => literalsOf(match[2]!).map((code) => ({ file, code }))),
  );
  const inline = sources.flatMap(({ file, text }) =>
    [...text.matchAll(/readonly code(?::|\s*=)\s*('[^']*'(?:\s*\|\s*'[^']*')*)/g)].flatMap((match) => literalsOf(match[1]!).map((code) => ({ file, code }))),
  );
  return [...typed, ...inline];
}

describe('error codes', () => {
  it('are found where they are declared (the scan reads the source it should)', () => {
    const codes = declaredCodes().map(({ code }) => code);
    expect(codes).toEqual(expect.arrayContaining(['STACK_TOOL_MISSING', 'BROWSER_CRASHED', 'WARC_MALFORMED', 'HTTP_INVALID_URL', 'HTTP_DNS_NOT_FOUND', 'HTTP_PRIVATE_NETWORK_REFUSED', 'SCOPE_INVALID_MODE', 'TRAP_OPTION_INVALID']));
  });

  it('exempt only recorded reasons that errors still carry', () => {
    for (const name of Object.keys(RECORDED_REASONS)) expect(sources.some(({ text }) => text.includes(`readonly code: ${name}`))).toBe(true);
  });

  it('are all PREFIX_UPPER_SNAKE', () => {
    const offending = declaredCodes().filter(({ code }) => !CODE.test(code));
    expect(offending).toEqual([]);
  });

  it('of the transport are HTTP_*', () => {
    expect(TRANSPORT_ERROR_CODES.filter((code) => !(CODE.test(code) && code.startsWith('HTTP_')))).toEqual([]);
  });
});
