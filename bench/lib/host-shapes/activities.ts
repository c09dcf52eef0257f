/** Stand-ins for the claim and the burst: results of the size a 5-URL host's are, no I/O. */
export interface HostShapeActivities {
  claim(host: string): Promise<{ urls: string[] }>;
  burst(urls: string[]): Promise<{ outcomes: string[] }>;
  claimingBurst(host: string): Promise<{ outcomes: string[] }>;
}

export function hostShapeActivities(onBurst: () => void): HostShapeActivities {
  return {
    async claim(host) {
      return { urls: [1, 2, 3, 4, 5].map((page) => `http://${host}/page-${page}`) };
    },
    async burst(urls) {
      onBurst();
      return { outcomes: urls.map(() => 'fetched') };
    },
    async claimingBurst(host) {
      onBurst();
      return { outcomes: [1, 2, 3, 4, 5].map((page) => `fetched http://${host}/page-${page}`) };
    },
  };
}
