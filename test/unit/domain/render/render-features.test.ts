import { describe, expect, it } from 'vitest';
import { distinctMarkers, frameworkMarkersOfElement, frameworkMarkersOfScriptText, noscriptAsksForJavaScript } from '../../../../src/domain/render/index.js';

describe('frameworkMarkersOfElement', () => {
  it.each([
    ['app-root', { 'ng-version': '17.0.0' }, ['angular']],
    ['html', { 'ng-app': 'shop' }, ['angular']],
    ['div', { 'data-reactroot': '' }, ['react']],
    ['div', { id: '__next' }, ['react']],
    ['script', { id: '__NEXT_DATA__', type: 'application/json' }, ['next']],
    ['div', { id: '__NEXT_DATA__' }, []],
    ['div', { id: '__nuxt' }, ['nuxt']],
    ['div', { 'data-v-app': '' }, ['vue']],
    ['div', { 'data-server-rendered': 'true' }, ['vue']],
    ['div', { id: '___gatsby' }, ['gatsby']],
    ['body', { 'data-sveltekit-preload-data': 'hover' }, ['svelte']],
    ['h1', { class: 'title svelte-1x2y3z' }, ['svelte']],
    ['body', { class: 'ember-application' }, ['ember']],
    ['div', { id: 'root', class: 'page' }, []],
  ] as const)('<%s %o> shows %o', (name, attributes, expected) => {
    expect(frameworkMarkersOfElement(name, attributes)).toEqual(expected);
  });
});

describe('frameworkMarkersOfScriptText', () => {
  it('finds hydration state in inline scripts', () => {
    expect(frameworkMarkersOfScriptText('window.__NUXT__=(function(a){return {}})(1)')).toEqual(['nuxt']);
    expect(frameworkMarkersOfScriptText('var x = 1;')).toEqual([]);
  });
});

describe('distinctMarkers', () => {
  it('orders and dedupes', () => {
    expect(distinctMarkers(['vue', 'react', 'vue', 'angular'])).toEqual(['angular', 'react', 'vue']);
  });
});

describe('noscriptAsksForJavaScript', () => {
  it.each([
    ['You need to enable JavaScript to run this app.', true],
    ['Please turn on JavaScript in your browser.', true],
    ['This site requires JavaScript.', true],
    ['JavaScript is disabled in your browser', true],
    ['이 사이트를 이용하려면 자바스크립트를 활성화하세요', true],
    ['Bitte aktivieren Sie JavaScript.', true],
    ['<img src="https://tracker.example/pixel.gif">', false],
    ['Read our privacy policy', false],
    ['JavaScript', false],
  ])('%j → %s', (text, expected) => {
    expect(noscriptAsksForJavaScript(text)).toBe(expected);
  });
});
