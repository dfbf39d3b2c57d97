# Kudos as a container: the production server (`npm start`) on the newest Node LTS, as user `node`.
# Build:  docker build -t kudos .        Run:  see compose.yaml and docs/deploy.md.
# BASE_IMAGE: any Debian-based image with node and npm on PATH and a `node` user (uid 1000), as the
# official image has; CI builds a local stand-in with scripts/container-base.sh.
ARG BASE_IMAGE=node:24-bookworm-slim

# Production dependencies only (patch-package's patches applied by postinstall).
FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# dist/ from src/, as `npm run build` makes it (esbuild and tsx are production dependencies).
FROM deps AS build
COPY tsconfig.json ./
COPY scripts/build.ts ./scripts/build.ts
COPY src ./src
RUN node --import tsx scripts/build.ts

# The environment is npm start's: nothing set here (the app reads no NODE_ENV); settings come from the
# container's environment (docs/reference.md).
FROM ${BASE_IMAGE}
WORKDIR /app
# Everything the running app reads is owned by root: the `node` user can read it, not change it.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY migrations ./migrations
# The embedded database's default folder, only used without DATABASE_URL (one instance, a demo).
RUN mkdir -p .data && chown node:node .data
USER node
EXPOSE 3000
# /healthz on PORT: the database answers (and, in Socket Mode, Slack has not refused the app).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start` without its build step (dist/ is built above): the same node and flags, and node as
# PID 1, so SIGTERM reaches the app and it drains (docs/operations.md, Shutdown). Migrations are
# applied at start, under a PostgreSQL advisory lock when several instances start together.
CMD ["node", "--max-semi-space-size=4", "dist/main.js"]
