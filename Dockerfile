# syntax=docker/dockerfile:1
# Sigil's production image: one image, two processes. `sigil start api` (the default command) serves REST and
# gRPC on PORT; `sigil start worker` runs the Temporal worker, the webhook outbox dispatcher and the
# reconciler, with /livez, /readyz and /metrics on SIGIL_WORKER_PORT. `sigil migrate` applies the database
# migrations (run it once per release, before the new api and workers start: compose.yaml, deploy/helm).
# Postgres (DATABASE_URL), Redis (REDIS_URL), Temporal (TEMPORAL_ADDRESS) and the sealing keys
# (SIGIL_SEALING_KEYS, SIGIL_BACKUP_SEALING_KEYS) come from outside: the image starts none of them.
#
#   docker build -t sigil .
#   docker run --env-file deploy/compose.env sigil migrate
#   docker run --env-file deploy/compose.env -p 8080:8080 sigil            # api
#   docker run --env-file deploy/compose.env sigil start worker            # worker

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency, the generated code (protobuf-es and the OpenAPI document: npm run gen) --------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The dependency layer only changes with the lock file and the protos.
COPY package.json package-lock.json buf.yaml buf.gen.yaml buf.gen.openapi.yaml ./
COPY proto ./proto
# The dependencies' install scripts run (npm rebuild); ours (`prepare`: npm run gen) waits for the sources,
# because the OpenAPI document's generator reads the protos through src/ (scripts/protoc-gen-openapi.ts).
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild && npm cache clean --force
COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY scripts/protoc-gen-openapi.ts ./scripts/protoc-gen-openapi.ts
COPY docs/spec/operations.md ./docs/spec/operations.md
# The demo page (/demo): demo/ bundled for the browser into demo/dist by esbuild, which tsx brings along.
COPY demo ./demo
COPY scripts/build-demo.ts ./scripts/build-demo.ts
# Then only what runs in production stays: tsx (the TypeScript loader of bin/sigil.js) and the Temporal worker's
# bundler (webpack, swc) are production dependencies; buf, vitest, typescript and the like are not.
RUN npm run gen && npm run build:demo && npm prune --omit=dev --no-audit --no-fund

# --- runtime ----------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SIGIL_WORKER_PORT=9091 \
    SIGIL_DATA_DIR=/var/lib/sigil \
    SIGIL_LOG_FORMAT=json \
    NODE_OPTIONS=--max-semi-space-size=64
WORKDIR /app
# The code is root's and read-only to the service's user; the only place it writes is the data dir (the
# worker's workflow-bundle cache, and the dev mailbox when no SMTP server is set) and the TypeScript
# loader's cache under /tmp.
COPY --from=build /app/package.json /app/tsconfig.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/src ./src
COPY --from=build /app/demo/dist ./demo/dist
RUN mkdir -p /var/lib/sigil && chown 1000:1000 /var/lib/sigil
# The base image's `node` user, by number so that orchestrators can check it is not root.
USER 1000:1000
EXPOSE 8080 9091
# /livez of whichever process this container runs: the API's port, else the worker's. Node's fetch, because
# the slim image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const get = (p) => fetch(`http://127.0.0.1:${p}/livez`).then((r) => { if (!r.ok) throw new Error(String(r.status)); }); get(process.env.PORT).catch(() => get(process.env.SIGIL_WORKER_PORT)).then(() => process.exit(0), () => process.exit(1));"]
ENTRYPOINT ["node", "bin/sigil.js"]
CMD ["start", "api"]
