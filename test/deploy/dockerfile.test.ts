import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { root, run } from "./deploy-tools.js";
import { dockerfileCommand, readDockerfile } from "./dockerfile.js";

/**
 * The image's recipe, as far as a machine without a container engine checks it: hadolint, and what the
 * production processes depend on (the commands, the user, the ports, the health check, what goes in).
 * test/deploy/production-processes.test.ts starts the very commands read here.
 */
describe("the Dockerfile", () => {
  const dockerfile = readDockerfile();

  it("passes hadolint", () => {
    expect(run("hadolint", ["--failure-threshold", "info", "Dockerfile"])).toBe("");
  });

  it("builds in one stage and runs on the same base in another, as a numeric non-root user", () => {
    const froms = dockerfile.instructions.filter((i) => i.name === "FROM").map((i) => i.args);
    expect(froms).toEqual(["${NODE_IMAGE} AS build", "${NODE_IMAGE} AS runtime"]);
    expect(dockerfile.args.NODE_IMAGE).toMatch(/^node:20(\.\d+)*-bookworm-slim$/);
    const runtime = dockerfile.stage("runtime");
    const user = runtime.filter((i) => i.name === "USER").map((i) => i.args);
    expect(user).toEqual(["1000:1000"]);
    // The dev dependencies stay in the build stage.
    expect(dockerfile.stage("build").some((i) => i.name === "RUN" && i.args.includes("npm prune --omit=dev"))).toBe(true);
    expect(runtime.some((i) => i.name === "RUN" && /npm (ci|install)/.test(i.args))).toBe(false);
  });

  it("starts `sigil start api` by default, exposes the API and worker ports, and checks /livez", () => {
    expect(dockerfileCommand(dockerfile)).toEqual({ entrypoint: ["node", "bin/sigil.js"], cmd: ["start", "api"] });
    expect(dockerfile.stage("runtime").filter((i) => i.name === "EXPOSE").map((i) => i.args)).toEqual(["8080 9091"]);
    expect(dockerfile.env).toMatchObject({ PORT: "8080", SIGIL_WORKER_PORT: "9091", HOST: "0.0.0.0", SIGIL_DATA_DIR: "/var/lib/sigil" });
    const health = dockerfile.instructions.find((i) => i.name === "HEALTHCHECK")!.args;
    expect(health).toContain("/livez");
    expect(health).toContain("fetch(");
  });

  it("keeps generated code, dependencies, data and secrets out of the build context", () => {
    const ignored = readFileSync(path.join(root, ".dockerignore"), "utf8").split("\n").map((l) => l.trim());
    for (const entry of ["**/node_modules", "src/gen", ".git", ".tools", "data", "**/*.env", ".env", "test"]) expect(ignored).toContain(entry);
  });

  it("builds the demo page in the build stage and ships only its build (demo/dist)", () => {
    const build = dockerfile.stage("build");
    expect(build.some((i) => i.name === "RUN" && i.args.includes("npm run build:demo"))).toBe(true);
    expect(dockerfile.stage("runtime").filter((i) => i.name === "COPY" && i.args.includes("demo")).map((i) => i.args)).toEqual(["--from=build /app/demo/dist ./demo/dist"]);
    // The build's own script is let into the context, the local build output is not.
    const ignored = readFileSync(path.join(root, ".dockerignore"), "utf8").split("\n").map((l) => l.trim());
    expect(ignored).toContain("!scripts/build-demo.ts");
    expect(ignored).toContain("demo/dist");
  });

  it("generates the code (protobuf-es and the OpenAPI document) once the sources it reads are in", () => {
    const build = dockerfile.stage("build");
    // `prepare` (npm run gen) cannot run at install time: the OpenAPI generator reads the protos through src/.
    const install = build.findIndex((i) => i.name === "RUN" && i.args.includes("npm ci"));
    expect(build[install].args).toContain("--ignore-scripts");
    expect(build[install].args).toContain("npm rebuild");
    const gen = build.findIndex((i) => i.name === "RUN" && i.args.includes("npm run gen"));
    const copies = build.filter((i) => i.name === "COPY").map((i) => i.args);
    for (const source of ["src ./src", "scripts/protoc-gen-openapi.ts ./scripts/protoc-gen-openapi.ts", "docs/spec/operations.md ./docs/spec/operations.md"]) {
      const at = build.findIndex((i) => i.name === "COPY" && i.args === source);
      expect(copies, source).toContain(source);
      expect(at).toBeLessThan(gen);
    }
    expect(build.find((i) => i.name === "COPY" && i.args.startsWith("package.json"))!.args).toContain("buf.gen.openapi.yaml");
    const ignored = readFileSync(path.join(root, ".dockerignore"), "utf8").split("\n").map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(["!scripts/protoc-gen-openapi.ts", "!docs/spec/operations.md"]));
  });

  it("is what compose.yaml builds and runs, with the same commands", () => {
    const compose = parse(readFileSync(path.join(root, "compose.yaml"), "utf8"), { merge: true }) as { services: Record<string, { build?: string; command?: string[] }> };
    for (const name of ["migrate", "api", "worker"]) expect(compose.services[name]!.build).toBe(".");
    expect(compose.services.api!.command).toEqual(dockerfileCommand(dockerfile).cmd);
    expect(compose.services.worker!.command).toEqual(["start", "worker"]);
    expect(compose.services.migrate!.command).toEqual(["migrate"]);
  });
});
