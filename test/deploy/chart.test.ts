import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { chartDir, findTool, installHint, run, schemaDir } from "./deploy-tools.js";

/**
 * The Helm chart (deploy/helm/sigil), as far as a machine without a cluster can check it: `helm lint`,
 * `helm template` with the smallest values an install needs and with the scale-out example, every rendered
 * object validated by kubeconform -strict against the Kubernetes API schemas (an unknown or misspelt field
 * fails), and what the objects must say read back from the rendered YAML.
 */

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // Each test reads the fields it checks; the schemas have validated the shapes.
  spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const minimal = [
  "--set", "config.publicUrl=https://id.example.com",
  "--set", "config.temporal.address=temporal.example:7233",
  "--set", "secrets.databaseUrl=postgres://sigil:pw@postgres:5432/sigil",
  "--set", "secrets.redisUrl=redis://redis:6379",
  "--set", `secrets.sealingKeys=k1:${Buffer.alloc(32, 1).toString("base64")}`,
  "--set", `secrets.backupSealingKeys=b1:${Buffer.alloc(32, 2).toString("base64")}`,
];
/** The minimal values less one setting. */
const without = (name: string) => minimal.flatMap((a, i) => (a.startsWith(`${name}=`) || minimal[i + 1]?.startsWith(`${name}=`) ? [] : [a]));
const scaleOut = ["-f", path.join(chartDir, "ci/scale-out-values.yaml")];

function template(args: string[]): { text: string; objects: K8sObject[] } {
  const text = run("helm", ["template", "sigil", chartDir, ...args]);
  const objects = parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
  return { text, objects };
}

/** kubeconform -strict on the rendered objects; ServiceMonitor is a CRD (no schema here) and is checked below. */
function validate(text: string): { valid: number; invalid: string[]; skipped: string[] } {
  const bin = findTool("kubeconform");
  if (!bin) throw new Error(`kubeconform not found: ${installHint}`);
  const args = ["-strict", "-summary", "-verbose", "-output", "json", "-skip", "ServiceMonitor", "-schema-location", `${schemaDir}/{{.ResourceKind}}{{.KindSuffix}}.json`, "-"];
  // Exits 1 when an object is invalid; the report on stdout says which.
  const result = spawnSync(bin, args, { input: text, encoding: "utf8" });
  if (!result.stdout.startsWith("{")) throw new Error(`kubeconform failed: ${result.stderr || result.stdout}`);
  const report = JSON.parse(result.stdout) as { resources: { kind: string; name: string; status: string; msg: string }[]; summary: { valid: number } };
  return {
    valid: report.summary.valid,
    invalid: report.resources.filter((r) => r.status !== "statusValid" && r.status !== "statusSkipped").map((r) => `${r.kind} ${r.name}: ${r.status} ${r.msg}`),
    skipped: report.resources.filter((r) => r.status === "statusSkipped").map((r) => r.kind),
  };
}

const one = (objects: K8sObject[], kind: string, name: string): K8sObject => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0]!;
};
const container = (o: K8sObject) => o.spec.template.spec.containers[0];
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe("the Helm chart", () => {
  it("passes helm lint --strict with the values an install needs, and with the scale-out example", () => {
    expect(run("helm", ["lint", "--strict", chartDir, ...minimal])).toContain("0 chart(s) failed");
    expect(run("helm", ["lint", "--strict", chartDir, ...scaleOut])).toContain("0 chart(s) failed");
  });

  it("refuses to render without the settings that must come from outside, naming them", () => {
    expect(() => template([])).toThrow(/config\.publicUrl is required/);
    expect(() => template(without("config.temporal.address"))).toThrow(/config\.temporal\.address is required/);
    expect(() => template(without("secrets.sealingKeys"))).toThrow(/secrets\.sealingKeys \(or secrets\.existingSecret\) is required/);
    expect(() => template(without("secrets.databaseUrl"))).toThrow(/secrets\.databaseUrl \(or secrets\.existingSecret\) is required/);
  });

  it("renders, with the minimal values, objects every one of which is valid for Kubernetes (kubeconform -strict)", () => {
    const { text, objects } = template(minimal);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      [
        "ConfigMap/sigil",
        "Deployment/sigil-api",
        "Deployment/sigil-worker",
        "Job/sigil-migrate",
        "PodDisruptionBudget/sigil-api",
        "PodDisruptionBudget/sigil-worker",
        "Secret/sigil",
        "Service/sigil-api",
        "Service/sigil-worker",
        "ServiceAccount/sigil",
      ].sort(),
    );
    const result = validate(text);
    expect(result.invalid).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.valid).toBe(objects.length);
  });

  it("is validated strictly: a misspelt field or a wrong type is rejected, not ignored", () => {
    const { text } = template(minimal);
    const broken = text.replace("terminationGracePeriodSeconds:", "terminationGracePeriodSecondz:").replace(/maxUnavailable: 1\n/, "maxUnavailable: {one: 1}\n");
    const result = validate(broken);
    expect(result.invalid.some((m) => m.includes("terminationGracePeriodSecondz"))).toBe(true);
    expect(result.invalid.some((m) => m.startsWith("PodDisruptionBudget") && m.includes("maxUnavailable"))).toBe(true);
  });

  it("runs the image's production commands: api and worker with their own ports and probes, migrations by a hook Job", () => {
    const { objects } = template(minimal);
    const config = one(objects, "ConfigMap", "sigil").data!;
    const api = one(objects, "Deployment", "sigil-api");
    const worker = one(objects, "Deployment", "sigil-worker");

    expect(container(api).args).toEqual(["start", "api"]);
    expect(container(api).ports).toEqual([{ name: "http", containerPort: 8080, protocol: "TCP" }]);
    expect(config.PORT).toBe("8080");
    expect(container(worker).args).toEqual(["start", "worker"]);
    expect(container(worker).ports).toEqual([{ name: "http", containerPort: 9091, protocol: "TCP" }]);
    expect(config.SIGIL_WORKER_PORT).toBe("9091");
    for (const d of [api, worker]) {
      const c = container(d);
      expect(c.livenessProbe.httpGet).toEqual({ path: "/livez", port: "http" });
      expect(c.startupProbe.httpGet).toEqual({ path: "/livez", port: "http" });
      expect(c.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    }
    // The pods never migrate: the Job does, once, before them.
    expect(config.SIGIL_MIGRATE_ON_START).toBe("false");
    expect(config.TEMPORAL_ADDRESS).toBe("temporal.example:7233");
    expect(config.HOST).toBe("0.0.0.0");

    const job = one(objects, "Job", "sigil-migrate");
    expect(job.metadata.annotations!["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    expect(job.metadata.annotations!["helm.sh/hook-delete-policy"]).toBe("before-hook-creation,hook-succeeded");
    expect(job.spec.template.spec.restartPolicy).toBe("Never");
    expect(container(job).args).toEqual(["migrate"]);
    // A hook runs before the ConfigMap exists: the settings are inline, the same as the ConfigMap's.
    const jobEnv = Object.fromEntries(container(job).env.filter((e: { value?: string }) => e.value !== undefined).map((e: { name: string; value: string }) => [e.name, e.value]));
    expect(jobEnv).toEqual(config);

    // The Secret the Job reads is made before it (lower hook weight) and outlives `helm uninstall`.
    const secret = one(objects, "Secret", "sigil");
    expect(secret.metadata.annotations).toMatchObject({ "helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-weight": "-10", "helm.sh/resource-policy": "keep" });
    expect(Number(secret.metadata.annotations!["helm.sh/hook-weight"])).toBeLessThan(Number(job.metadata.annotations!["helm.sh/hook-weight"]));
    expect(Object.keys(secret.stringData!).sort()).toEqual(["DATABASE_URL", "REDIS_URL", "SIGIL_BACKUP_SEALING_KEYS", "SIGIL_SEALING_KEYS"]);
    // Each secret setting by name: a Secret lacking one stops the pod rather than letting it fall back to a default.
    for (const o of [api, worker, job]) {
      const refs = container(o).env.filter((e: { valueFrom?: unknown }) => e.valueFrom).map((e: { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } }) => `${e.name}=${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`);
      expect(refs.sort()).toEqual(["DATABASE_URL=sigil/DATABASE_URL", "REDIS_URL=sigil/REDIS_URL", "SIGIL_BACKUP_SEALING_KEYS=sigil/SIGIL_BACKUP_SEALING_KEYS", "SIGIL_SEALING_KEYS=sigil/SIGIL_SEALING_KEYS"]);
    }
  });

  it("runs every container as a non-root user on a read-only root filesystem, with the data dir and /tmp writable", () => {
    const { objects } = template(minimal);
    for (const name of ["sigil-api", "sigil-worker", "sigil-migrate"]) {
      const o = objects.find((x) => x.metadata.name === name && (x.kind === "Deployment" || x.kind === "Job"))!;
      const pod = o.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(container(o).securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
      expect(container(o).volumeMounts.map((m: { mountPath: string }) => m.mountPath).sort()).toEqual(["/tmp", "/var/lib/sigil"]);
      expect(pod.volumes.every((v: { emptyDir?: unknown }) => v.emptyDir)).toBe(true);
      expect(container(o).env.find((e: { name: string }) => e.name === "SIGIL_DATA_DIR")?.value ?? one(objects, "ConfigMap", "sigil").data!.SIGIL_DATA_DIR).toBe("/var/lib/sigil");
    }
  });

  it("gives api and worker disruption budgets and services that select their own pods", () => {
    const { objects } = template(minimal);
    for (const component of ["api", "worker"]) {
      const pods = one(objects, "Deployment", `sigil-${component}`).spec.template.metadata.labels;
      const other = one(objects, "Deployment", `sigil-${component === "api" ? "worker" : "api"}`).spec.template.metadata.labels;
      const pdb = one(objects, "PodDisruptionBudget", `sigil-${component}`);
      expect(pdb.spec.maxUnavailable).toBe(1);
      expect(matches(pdb.spec.selector.matchLabels, pods)).toBe(true);
      expect(matches(pdb.spec.selector.matchLabels, other)).toBe(false);
      const service = one(objects, "Service", `sigil-${component}`);
      expect(matches(service.spec.selector, pods)).toBe(true);
      expect(matches(service.spec.selector, other)).toBe(false);
    }
    expect(one(objects, "Service", "sigil-api").spec.ports).toEqual([{ name: "http", port: 8080, targetPort: "http", protocol: "TCP" }]);
    expect(one(objects, "Service", "sigil-worker").spec.clusterIP).toBe("None");
  });

  it("scales out: replica counts from the values, an existing Secret, ServiceMonitors for api and worker /metrics", () => {
    const { text, objects } = template(scaleOut);
    const result = validate(text);
    expect(result.invalid).toEqual([]);
    expect(result.skipped).toEqual(["ServiceMonitor", "ServiceMonitor"]);

    expect(one(objects, "Deployment", "sigil-api").spec.replicas).toBe(3);
    expect(one(objects, "Deployment", "sigil-worker").spec.replicas).toBe(2);
    expect(container(one(objects, "Deployment", "sigil-api")).image).toBe("registry.example.com/sigil:0.1.0");
    // The operator's Secret is used, and the chart makes none.
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
    for (const name of ["sigil-api", "sigil-worker"]) {
      const d = one(objects, "Deployment", name);
      expect(container(d).envFrom).toContainEqual({ secretRef: { name: "sigil-secrets" } });
      expect(container(d).env.filter((e: { valueFrom?: { secretKeyRef: { name: string } } }) => e.valueFrom).every((e: { valueFrom: { secretKeyRef: { name: string } } }) => e.valueFrom.secretKeyRef.name === "sigil-secrets")).toBe(true);
    }
    const config = one(objects, "ConfigMap", "sigil").data!;
    expect(config).toMatchObject({ TEMPORAL_NAMESPACE: "sigil", SIGIL_TRUSTED_PROXIES: "10.0.0.0/8", SIGIL_WEBHOOK_DELIVERY_SLOTS: "300" });

    for (const component of ["api", "worker"]) {
      const monitor = one(objects, "ServiceMonitor", `sigil-${component}`);
      expect(monitor.apiVersion).toBe("monitoring.coreos.com/v1");
      expect(monitor.metadata.labels).toMatchObject({ release: "kube-prometheus-stack" });
      expect(monitor.spec.endpoints).toEqual([{ port: "http", path: "/metrics", interval: "30s", scrapeTimeout: "10s" }]);
      const service = one(objects, "Service", `sigil-${component}`);
      expect(matches(monitor.spec.selector.matchLabels, service.metadata.labels!)).toBe(true);
      expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain("http");
    }
    const otherMonitor = one(objects, "ServiceMonitor", "sigil-worker");
    expect(matches(otherMonitor.spec.selector.matchLabels, one(objects, "Service", "sigil-api").metadata.labels!)).toBe(false);
  });
});
