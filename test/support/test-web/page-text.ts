// The words a generated page carries. The default shape draws every sentence from a twenty-word
// vocabulary (a web of pages alike in words but not in order or counts); the other two give the
// same web's pages text of their own from a large vocabulary, either all distinct or mostly one
// shared template with a few sentences of the page's own, as a shop's or a docs site's pages are.
// The text comes from a random stream of its own per page, so the link structure is the same
// whatever the shape: two webs that differ only in their text can be compared.
import { hashString, pick, randomInt, seededRandom } from './random.js';

/**
 * 'small-vocabulary' (default): sentences of the twenty words of {@link SMALL_VOCABULARY}.
 * 'distinct': sentences of a 4,096-word vocabulary, every page its own.
 * 'templated': the same passage on every page of the web (about six sevenths of the padding),
 * then a few sentences of the page's own, both from the large vocabulary.
 */
export type PageTextShape = 'small-vocabulary' | 'distinct' | 'templated';

export const PAGE_TEXT_SHAPES: readonly PageTextShape[] = ['small-vocabulary', 'distinct', 'templated'];

export const SMALL_VOCABULARY: readonly string[] =
  'crawl frontier politeness robots fetch parse canonical fingerprint queue host delay budget recrawl freshness sitemap anchor link page content hash'.split(' ');

const SYLLABLES = 'ba be bi bo bu ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu za ze zi zo zu'.split(' ');

/** 4,096 distinct pseudo-words of two to four syllables, the same on every call. */
const LARGE_VOCABULARY: readonly string[] = (() => {
  const random = seededRandom(4096);
  const words = new Set<string>();
  while (words.size < 4096) {
    words.add(Array.from({ length: 2 + randomInt(random, 3) }, () => pick(random, SYLLABLES)).join(''));
  }
  return [...words];
})();

const TEMPLATE_SENTENCES = 24;
const OWN_SENTENCES = 4;

/** A sentence of 8-15 words of `vocabulary`. */
export function sentenceOf(random: () => number, vocabulary: readonly string[]): string {
  return Array.from({ length: 8 + randomInt(random, 8) }, () => pick(random, vocabulary)).join(' ') + '.';
}

/** The passage every page of a templated web repeats. */
function templatePassage(webSeed: number): string[] {
  const random = seededRandom(hashString(`template:${webSeed}`));
  return Array.from({ length: TEMPLATE_SENTENCES }, () => sentenceOf(random, LARGE_VOCABULARY));
}

/** What a page shows: two lead paragraphs and the sentences its padding cycles through. */
export interface PageText {
  paragraphs: string[];
  filler: string[];
}

/**
 * The text of one page of shape `shape`. The small-vocabulary shape draws from the web's own
 * stream (`webRandom`), as every generated web always has; the others from a stream of the page's
 * own (`webSeed`, host, path).
 */
export function pageText(shape: PageTextShape, webRandom: () => number, webSeed: number, host: string, path: string, padded: boolean): PageText {
  const sentence = (): string => sentenceOf(webRandom, SMALL_VOCABULARY);
  // Drawn whatever the shape, so that the web's stream, and with it every later page's links, is the same.
  const smallVocabulary = { paragraphs: [sentence(), sentence()], filler: padded ? [sentence(), sentence(), sentence()] : [] };
  if (shape === 'small-vocabulary') return smallVocabulary;
  return largeVocabularyText(shape, webSeed, host, path, padded);
}

function largeVocabularyText(shape: 'distinct' | 'templated', webSeed: number, host: string, path: string, padded: boolean): PageText {
  const random = seededRandom(hashString(`${webSeed}:${host}${path}`));
  const sentence = (): string => sentenceOf(random, LARGE_VOCABULARY);
  const paragraphs = [sentence(), sentence()];
  if (!padded) return { paragraphs, filler: [] };
  const own = Array.from({ length: OWN_SENTENCES }, sentence);
  return { paragraphs, filler: shape === 'templated' ? [...templatePassage(webSeed), ...own] : [...own, ...Array.from({ length: TEMPLATE_SENTENCES }, sentence)] };
}
