# syntax=docker/dockerfile:1
# One image for every Sightline process; the command picks the role (Procfile):
#   node bin/sightline.js api | worker | migrate
FROM node:20-bookworm-slim

# Chromium for full-mode scans (browser render + Lighthouse) from Debian, fonts so pages lay out
# and measure as real visitors see them (Latin metric-compatible, CJK, emoji), and tini as PID 1:
# it forwards SIGTERM to node (which drains) and reaps Chromium's orphaned helper processes.
# CHROMIUM_PATH (below) is the package's binary: /usr/bin/chromium is a wrapper script that adds
# /etc/chromium.d flags and makes the process we start a shell, not the browser.
RUN apt-get update \
  && apt-get install -y --no-install-recommends \
    ca-certificates \
    chromium \
    fonts-liberation \
    fonts-noto-cjk \
    fonts-noto-color-emoji \
    tini \
  && rm -rf /var/lib/apt/lists/*

# npm 11 reads package.json's allowScripts; --strict-allow-scripts fails the build if a dependency
# wants to run an install script that is not listed there (node 20 ships npm 10, which runs them all).
RUN npm install -g npm@11.19.1 && npm cache clean --force

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    WORKER_METRICS_PORT=9464 \
    DATA_DIR=/app/.data \
    CHROMIUM_PATH=/usr/lib/chromium/chromium \
    SIGHTLINE_SKIP_BROWSER_INSTALL=1 \
    NPM_CONFIG_UPDATE_NOTIFIER=false

WORKDIR /app
COPY package.json package-lock.json ./
# `npm install` rather than `npm ci`: the lock omits platform-only optional packages (biome's)
# that some registries do not serve, which `npm ci` treats as an out-of-sync lock.
RUN npm install --omit=dev --strict-allow-scripts --no-audit --no-fund && npm cache clean --force

# Sources stay owned by root (read-only to the service); only the data folder is writable, for the
# embedded Postgres of `sightline start` when no DATABASE_URL is given.
COPY . .
# The sources compiled to dist/ (scripts/build.mjs), which bin/sightline.js runs: no TypeScript
# compiled at each start. Built here, as root, because the sources are read-only at run time.
RUN node scripts/build.mjs && mkdir -p /app/.data && chown node:node /app/.data

USER node
EXPOSE 3000 9464
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/sightline.js", "api"]
