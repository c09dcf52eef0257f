import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { findFreePorts, isPortOpen } from '../../../src/stack/free-port.js';

const servers: Server[] = [];

function listen(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    servers.push(server);
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no port'));
      else resolve(address.port);
    });
  });
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('findFreePorts', () => {
  it('returns distinct ports that can be bound', async () => {
    const ports = await findFreePorts(5);
    expect(new Set(ports).size).toBe(5);
    for (const port of ports) expect(await listen(port)).toBe(port);
  });

  it('keeps a preferred port that is free and replaces one that is taken', async () => {
    const [free] = await findFreePorts(1);
    const taken = await listen();
    const ports = await findFreePorts(2, { preferredPorts: [free, taken] });
    expect(ports[0]).toBe(free);
    expect(ports[1]).not.toBe(taken);
    expect(ports[1]).not.toBe(free);
  });

  it('never hands out one preferred port twice', async () => {
    const [port] = await findFreePorts(1);
    const ports = await findFreePorts(2, { preferredPorts: [port, port] });
    expect(ports[0]).toBe(port);
    expect(ports[1]).not.toBe(port);
  });

  it('never returns an excluded port, even when it is preferred and free', async () => {
    const excluded = new Set(await findFreePorts(3));
    const ports = await findFreePorts(4, { preferredPorts: [...excluded], excludePorts: excluded });
    expect(ports.filter((port) => excluded.has(port))).toEqual([]);
    expect(new Set(ports).size).toBe(4);
  });
});

describe('isPortOpen', () => {
  it('tells a listening port from a closed one', async () => {
    const open = await listen();
    const [closed] = await findFreePorts(1);
    expect(await isPortOpen('127.0.0.1', open)).toBe(true);
    expect(await isPortOpen('127.0.0.1', closed!)).toBe(false);
  });
});
