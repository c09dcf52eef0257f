/**
 * What the initial HTML says about whether a page is built by JavaScript, read in the parse the
 * page gets anyway (src/parse/html-page-reader.ts) and decided on here, cheapest signals first
 * (the approach of StormCrawler's Playwright module): framework markers, an empty application
 * root, a <noscript> that asks for JavaScript, thin text with scripts.
 */

/** A framework's trace in server-sent HTML. */
export type FrameworkMarker =
  /** Angular: `ng-version` on the root component, or `ng-app` (AngularJS). */
  | 'angular'
  /** React: `data-reactroot`, or a `#root` / `#__next` mount point. */
  | 'react'
  /** Next.js: `<script id="__NEXT_DATA__">`. */
  | 'next'
  /** Nuxt: `window.__NUXT__` in an inline script, or a `#__nuxt` mount point. */
  | 'nuxt'
  /** Vue: `data-v-app`, `data-server-rendered`, or an `#app` mount point. */
  | 'vue'
  /** Svelte / SvelteKit: `data-sveltekit-*` attributes or `svelte-` class hashes. */
  | 'svelte'
  /** Gatsby: a `#___gatsby` mount point. */
  | 'gatsby'
  /** Ember: an `ember-application` class or `data-ember-*` attributes. */
  | 'ember';

export const FRAMEWORK_MARKERS: readonly FrameworkMarker[] = ['angular', 'react', 'next', 'nuxt', 'vue', 'svelte', 'gatsby', 'ember'];

/** The element ids an application mounts into: empty in the HTML of a page built in the browser. */
export const APP_ROOT_IDS: ReadonlySet<string> = new Set(['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte', 'main-app', 'react-root', 'ember-app']);

/** The markers one element's attributes show (its tag name and attributes, names lower-cased). */
export function frameworkMarkersOfElement(name: string, attributes: Readonly<Record<string, string>>): FrameworkMarker[] {
  const markers: FrameworkMarker[] = [];
  if ('ng-version' in attributes || 'ng-app' in attributes || 'data-ng-app' in attributes) markers.push('angular');
  if ('data-reactroot' in attributes) markers.push('react');
  if ('data-v-app' in attributes || 'data-server-rendered' in attributes) markers.push('vue');
  const id = attributes.id;
  if (id === '__NEXT_DATA__' && name === 'script') markers.push('next');
  if (id === '__next') markers.push('react');
  if (id === '__nuxt') markers.push('nuxt');
  if (id === '___gatsby') markers.push('gatsby');
  const className = attributes.class ?? '';
  if (/\bsvelte-[a-z0-9]+\b/i.test(className) || Object.keys(attributes).some((attribute) => attribute.startsWith('data-sveltekit'))) markers.push('svelte');
  if (/\bember-application\b/.test(className) || Object.keys(attributes).some((attribute) => attribute.startsWith('data-ember'))) markers.push('ember');
  return markers;
}

/** The markers an inline script's text shows (a state object the framework hydrates from). */
export function frameworkMarkersOfScriptText(text: string): FrameworkMarker[] {
  const markers: FrameworkMarker[] = [];
  if (text.includes('__NUXT__')) markers.push('nuxt');
  if (text.includes('__NEXT_DATA__')) markers.push('next');
  if (text.includes('ng-version') || text.includes('platformBrowserDynamic')) markers.push('angular');
  return markers;
}

/**
 * Whether a <noscript> element's text asks the reader to turn JavaScript on: what a page built
 * in the browser shows to a client without it. Reads English and a few other languages' common
 * phrasings; a <noscript> holding a tracking pixel or a plain alternative says nothing.
 */
export function noscriptAsksForJavaScript(text: string): boolean {
  const normalized = text.toLowerCase().replace(/\s+/g, ' ');
  if (!/java ?script|\bjs\b|자바스크립트|javascript/.test(normalized)) return false;
  return /enable|turn on|activate|requires?|required|need(s|ed)?|must|switch on|disabled|not (be )?(available|supported)|allow|aktivier|activ|habilit|활성화|필요|有効|启用|請|请/.test(normalized);
}

/** What the decision reads of one page's initial HTML (or of its rendered DOM). Plain JSON. */
export interface RenderFeatures {
  /** Characters of visible main text. */
  textLength: number;
  /** Links found (a, area with an href). */
  linkCount: number;
  /** <script> elements, with a src or inline. */
  scriptCount: number;
  /** Distinct framework markers seen, in FRAMEWORK_MARKERS order. */
  frameworkMarkers: FrameworkMarker[];
  /** An application root (APP_ROOT_IDS) with no element and no text inside. */
  emptyAppRoot: boolean;
  /** A <noscript> asks for JavaScript. */
  noscriptAsksForJavaScript: boolean;
}

/** Markers in their canonical order, each once. */
export function distinctMarkers(markers: Iterable<FrameworkMarker>): FrameworkMarker[] {
  const seen = new Set(markers);
  return FRAMEWORK_MARKERS.filter((marker) => seen.has(marker));
}
