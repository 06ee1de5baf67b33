// The layers of src/ and the direction they point (docs/design.md, "Layers"): transport (src/server,
// src/gateway, src/rpc) → domain (src/domain) → storage (src/db). Checked by test/architecture/dependencies.test.ts
// in `npm test`, so a reversed import or a new circle fails CI. `npx depcruise src` prints the same report.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import circles in src/ (type-only imports count: they couple the modules all the same).",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "domain-not-transport",
      severity: "error",
      comment:
        "Domain code knows nothing of the transport: no RPC handlers or context, no REST gateway, no HTTP server, " +
        "no generated messages (handlers map those to domain types).",
      from: { path: "^src/domain/" },
      to: { path: "^src/(rpc|gateway|server|gen)/" },
    },
    {
      name: "domain-not-runtime",
      severity: "error",
      comment:
        "Domain code declares what it needs (src/domain/deps.ts) and is handed it: it does not reach into the " +
        "Temporal workflows/activities/worker, the process wiring, the infrastructure supervisors or the " +
        "messaging adapters (mail, SMS: the domain sees their interfaces in deps.ts).",
      from: { path: "^src/domain/" },
      to: { path: "^src/(workflows|activities|temporal|infra|messaging)/|^src/(runtime|main|cli)[.]ts$" },
    },
    {
      name: "domain-not-adapters",
      severity: "error",
      comment:
        "The outside services the domain calls (a cloud drive, a customer's backup URL, the social hub) reach it " +
        "as ports in src/domain/deps.ts; only the process wiring (src/deps.ts) builds the adapters.",
      from: { path: "^src/domain/" },
      to: { path: "^src/adapters/" },
    },
    {
      name: "waas-activities-are-thin",
      severity: "error",
      comment:
        "The WaaS wallet actor's activities call the domain (src/domain/waas/threshold), which owns the rules " +
        "(which set is current, which room may run): they reach no repository and no key material themselves.",
      from: { path: "^src/activities/waas" },
      to: { path: "^src/(db/repositories|crypto)/", pathNot: "^src/crypto/seal[.]ts$" },
    },
    {
      name: "net-is-below-domain",
      severity: "error",
      comment:
        "Outbound connections (the destination policy, the pinned client) serve the domain and the adapters " +
        "alike, so they import neither, nor anything above them.",
      from: { path: "^src/net/" },
      to: { path: "^src/(rpc|gateway|server|gen|domain|adapters|db|workflows|activities|temporal|infra|messaging)/|^src/(runtime|main|cli|deps)[.]ts$" },
    },
    {
      name: "db-is-the-bottom",
      severity: "error",
      comment: "SQL repositories import no layer above them: neither transport nor domain nor Temporal code.",
      from: { path: "^src/db/" },
      to: { path: "^src/(rpc|gateway|server|gen|domain|workflows|activities|temporal)/|^src/(runtime|main|cli)[.]ts$" },
    },
    {
      name: "workflows-are-deterministic",
      severity: "error",
      comment:
        "Workflow code runs in Temporal's deterministic sandbox: it imports only @temporalio/workflow, other " +
        "workflow modules and type-only declarations (activity signatures, ids).",
      from: { path: "^src/workflows/" },
      to: {
        // swc does not tell type-only imports apart, so the type-only modules workflows may name are listed
        // here, and test/architecture/dependencies.test.ts checks that those imports are `import type`.
        pathNot: ["^src/workflows/", "^node_modules/@temporalio/workflow/", "^src/activities/index[.]ts$", "^src/domain/"],
      },
    },
    {
      name: "not-to-tests",
      severity: "error",
      comment: "Production code never imports test code.",
      from: { path: "^src/" },
      to: { path: "^test/" },
    },
    {
      name: "not-to-dev-dependencies",
      severity: "error",
      comment: "Production code imports runtime dependencies only (devDependencies are not installed in production).",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    // Generated code is a leaf: imports of it are checked, its own imports are not.
    doNotFollow: { path: ["node_modules", "^src/gen/"] },
    // TypeScript 7 ships no compiler API: swc parses the sources. Type-only imports are kept (see no-circular).
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"],
    },
  },
};
