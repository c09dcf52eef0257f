import { describe, expect, it } from 'vitest';
import { extractHtmlDocument } from '../../../src/parse/html-document.js';

const featuresOf = (html: string) => extractHtmlDocument(html, 'https://a.example/', { productToken: 'durablecrawler' }).renderFeatures;

describe('render features read in the one parse', () => {
  it('finds an empty application root, and not one with content', () => {
    expect(featuresOf('<html><body><div id="root"></div><script src="/app.js"></script></body></html>')).toMatchObject({ emptyAppRoot: true, scriptCount: 1, textLength: 0, linkCount: 0 });
    expect(featuresOf('<div id="app">\n  \n</div><script></script>').emptyAppRoot).toBe(true);
    expect(featuresOf('<div id="app"><p>Hello</p></div>').emptyAppRoot).toBe(false);
    expect(featuresOf('<div id="app">Hello</div>').emptyAppRoot).toBe(false);
    expect(featuresOf('<div id="main"></div>').emptyAppRoot).toBe(false);
    // A root inside inert content is none.
    expect(featuresOf('<noscript><div id="root"></div></noscript>').emptyAppRoot).toBe(false);
  });

  it('reads framework markers from attributes and hydration scripts', () => {
    const next = featuresOf('<div id="__next" data-reactroot=""><h1>Shop</h1></div><script id="__NEXT_DATA__" type="application/json">{"props":{}}</script>');
    expect(next.frameworkMarkers).toEqual(['react', 'next']);
    expect(next.scriptCount).toBe(1);
    expect(featuresOf('<app-root ng-version="17.1.0"></app-root>').frameworkMarkers).toEqual(['angular']);
    expect(featuresOf('<script>window.__NUXT__=(function(){return {}})()</script>').frameworkMarkers).toEqual(['nuxt']);
    // Past the first characters of a script, nothing is read.
    expect(featuresOf(`<script>${' '.repeat(400)}window.__NUXT__={}</script>`).frameworkMarkers).toEqual([]);
    expect(featuresOf('<p>A page about window.__NUXT__</p>').frameworkMarkers).toEqual([]);
  });

  it('reads a <noscript> that asks for JavaScript, and counts text and links as the document does', () => {
    const shell = featuresOf('<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div><script src="/a.js"></script>');
    expect(shell.noscriptAsksForJavaScript).toBe(true);
    expect(shell.textLength).toBe(0);
    expect(featuresOf('<noscript><img src="/pixel.gif"></noscript><p>x</p>').noscriptAsksForJavaScript).toBe(false);
    const page = featuresOf('<p>Some words here</p><a href="/a">a</a><a href="/b">b</a>');
    expect(page).toMatchObject({ linkCount: 2, scriptCount: 0, emptyAppRoot: false });
    expect(page.textLength).toBe('Some words hereab'.length);
  });
});
