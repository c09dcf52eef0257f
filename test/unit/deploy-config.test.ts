// The compose file's monitoring services and what they mount: Prometheus scrapes the workers on
// the port they serve, Grafana gets its data source and the committed dashboard. (No Docker engine
// here, and no compose plugin: the file is parsed and checked as `docker compose config` would
// resolve it. That every metric the dashboard queries is exported is checked against a real
// scrape in test/e2e/metrics.test.ts.)
import { existsSync, readFileSync } from 'node:fs';
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
