// The compose file resolves as `docker compose config` resolves it (tools/compose-config, built on
// the same library, since this machine has no compose plugin), and its monitoring services fit:
// Prometheus scrapes the workers on the port they serve, Grafana gets its data source and the
// committed dashboard. That every metric the dashboard queries is exported is checked against a
// real scrape in test/e2e/metrics.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

interface ComposeService {
  image?: string;
  command?: string[];
  volumes?: string[];
  ports?: string[];
  depends_on?: unknown;
}
const compose = parse(read('docker-compose.yml')) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };

/** Runs tools/compose-config (built by scripts/install-tools.sh, which `npm test` runs first). */
function composeConfig(file: string): { status: number | null; stdout: string; stderr: string } {
  const binary = path.join(root, '.tools', 'bin', 'compose-config');
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm run tools\` (scripts/install-tools.sh builds it from tools/compose-config)`);
  const run = spawnSync(binary, [file], { cwd: root, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('docker compose config', () => {
  it('resolves docker-compose.yml, Prometheus and Grafana among its services', () => {
    const resolved = composeConfig('docker-compose.yml');
    expect(resolved.stderr).toBe('');
    expect(resolved.status).toBe(0);
    const services = Object.keys((parse(resolved.stdout) as { services: Record<string, unknown> }).services);
    expect(services).toEqual(expect.arrayContaining(['postgres', 'temporal', 'minio', 'worker', 'prometheus', 'grafana']));
  });

  it('refuses a compose file the schema does not allow, naming what is wrong', () => {
    const broken = path.join(mkdtempSync(path.join(tmpdir(), 'compose-')), 'docker-compose.yml');
    writeFileSync(broken, read('docker-compose.yml').replace('    image: prom/prometheus:', '    imagex: prom/prometheus:'));
    const resolved = composeConfig(broken);
    expect(resolved.status).toBe(1);
    expect(resolved.stderr).toContain('services.prometheus');
  });
});

describe('docker-compose.yml monitoring', () => {
  it('has Prometheus and Grafana beside the crawler, on loopback ports, their named volumes declared', () => {
    const { prometheus, grafana } = compose.services;
    expect(prometheus?.image).toMatch(/^prom\/prometheus:/);
    expect(grafana?.image).toMatch(/^grafana\/grafana:/);
    for (const service of [prometheus!, grafana!]) {
      for (const port of service.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./')) expect(existsSync(path.join(root, source)), `${source} exists`).toBe(true);
        else expect(compose.volumes, `named volume ${source}`).toHaveProperty(source);
      }
    }
  });

  it('has workers serve metrics on the port Prometheus scrapes them at', () => {
    const command = compose.services['worker']!.command!;
    const port = command[command.indexOf('--metrics-port') + 1];
    const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as { scrape_configs: { dns_sd_configs: { names: string[]; port: number }[] }[] };
    const target = prometheus.scrape_configs[0]!.dns_sd_configs[0]!;
    expect(target.names).toEqual(['worker']);
    expect(String(target.port)).toBe(port);
    // Inside the compose network: the worker's metrics listen beyond loopback there.
    expect(command[command.indexOf('--metrics-host') + 1]).toBe('0.0.0.0');
  });

  it('provisions the data source and the dashboard Grafana is pointed at', () => {
    const datasource = parse(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as { datasources: { uid: string; url: string }[] };
    const provider = parse(read('deploy/grafana/provisioning/dashboards/crawler.yml')) as { providers: { options: { path: string } }[] };
    const dashboard = JSON.parse(read('deploy/grafana/dashboards/crawler.json')) as { panels: { title: string; datasource: { uid: string }; targets: { expr: string }[] }[] };
    expect(datasource.datasources[0]!.url).toBe('http://prometheus:9090');
    const mounted = compose.services['grafana']!.volumes!.find((volume) => volume.startsWith('./deploy/grafana/dashboards:'))!.split(':')[1];
    expect(provider.providers[0]!.options.path).toBe(mounted);
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(6);
    for (const panel of dashboard.panels) {
      expect(panel.datasource.uid).toBe(datasource.datasources[0]!.uid);
      expect(panel.targets.length).toBeGreaterThan(0);
    }
    const titles = dashboard.panels.map((panel) => panel.title.toLowerCase()).join(' | ');
    for (const topic of ['fetched', 'failures', 'politeness', 'backlog', 'tier', 'temporal']) expect(titles).toContain(topic);
  });
});
