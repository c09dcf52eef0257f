# The crawler worker image: `docker compose up` runs it against the compose services; more
# replicas (or more machines) against one Temporal cluster is how a crawl scales out.
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first so that source edits reuse this layer. tsx is a runtime dependency: the
# CLI runs the TypeScript sources directly (bin/crawler.js), so there is no build step.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Only what runs, by name (.dockerignore sends nothing else): no .env file, data or scratch folder
# of the checkout can reach the image.
COPY tsconfig.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY scripts/ensure-services.ts ./scripts/
COPY src ./src
# The worker keeps its bundle cache and spool under the default data folder, its user's alone; the
# image's files stay root's.
RUN mkdir -p -m 0700 .crawler-data && chown node:node .crawler-data

USER node
CMD ["node", "bin/crawler.js", "worker"]
