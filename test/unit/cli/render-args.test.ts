// `crawler crawl`'s --render flags: the mode and its default, allow and deny rules, other origins,
// the budget; a bad value exits 2 and names the flag the user typed.
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/cli/crawl/crawl-flags.js';
import { CliError } from '../../../src/cli/cli-error.js';
import { DEFAULT_RENDER_BUDGET } from '../../../src/domain/render/index.js';

describe('crawler crawl --render flags', () => {
  it('renders in the mode given, else in the default the caller gives (auto with a browser, never without)', async () => {
    expect((await buildConfig({})).render?.mode).toBe('never');
    expect((await buildConfig({}, { defaultRenderMode: 'auto' })).render?.mode).toBe('auto');
    expect((await buildConfig({ render: 'never' }, { defaultRenderMode: 'auto' })).render?.mode).toBe('never');
    expect((await buildConfig({ render: 'always' })).render?.mode).toBe('always');
  });

  it('keeps rules, origins and budget as stored, normalized', async () => {
    const config = await buildConfig({
      render: 'auto',
      'render-allow': ['App.Example.com', 'https://shop.example/app/'],
      'render-deny': ['https://shop.example/app/admin/'],
      'render-allow-origin': ['https://CDN.example/lib/x.js'],
      'render-max-renders': '50',
      'render-max-cpu-seconds': '120',
      'render-max-per-host': '10',
      'render-settle-ms': '2000',
    });
    expect(config.render).toMatchObject({
      mode: 'auto',
      allow: ['app.example.com', 'https://shop.example/app/'],
      deny: ['https://shop.example/app/admin/'],
      allowOrigins: ['https://cdn.example'],
      budget: { maxRenders: 50, maxCpuSeconds: 120, maxRendersPerHost: 10 },
      settleMs: 2000,
    });
    expect((await buildConfig({})).render?.budget).toEqual(DEFAULT_RENDER_BUDGET);
  });

  it.each([
    [{ render: 'sometimes' }, /--render: expected never, auto or always/],
    [{ 'render-allow': ['ftp://x.example/'] }, /--render-allow/],
    [{ 'render-deny': ['not a rule'] }, /--render-deny/],
    [{ 'render-allow-origin': ['cdn.example'] }, /--render-allow-origin/],
    [{ 'render-max-renders': '-1' }, /--render-max-renders/],
    [{ 'render-settle-ms': '5' }, /--render-settle-ms/],
  ])('refuses %o, naming its flag', async (values, message) => {
    const refused = buildConfig(values);
    await expect(refused).rejects.toBeInstanceOf(CliError);
    await expect(refused).rejects.toThrow(message);
  });
});
