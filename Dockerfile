# The crawler worker image: `docker compose up` runs it against the compose services; more
# replicas (or more machines) against one Temporal cluster is how a crawl scales out.
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first so that source edits reuse this layer. tsx is a runtime dependency: the
# CLI runs the TypeScript sources directly (bin/crawler.js), so there is no build step.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY . .
# The worker may keep local state under the default data folder; the image's files stay root's.
RUN mkdir -p .crawler-data && chown node:node .crawler-data

USER node
CMD ["node", "bin/crawler.js", "worker"]
