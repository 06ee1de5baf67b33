// The npm registry this project is developed against lacks some platform builds of native packages
// (e.g. @bufbuild/buf-darwin-arm64 at our buf version), so `npm install` cannot record them in
// package-lock.json, and `npm ci` then refuses the lock as out of sync. This adds a lock entry for every
// optional platform package a locked package declares but the lock lacks, marked optional with the os and
// cpu its name states: npm ci skips them on other platforms, and on their own platform fetches them by
// version as usual. Run after `npm install` changes the lock: node scripts/lock-foreign-platforms.mjs
import { readFileSync, writeFileSync } from "node:fs";

const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const pkgs = lock.packages;
const OS = ["darwin", "linux", "win32", "freebsd", "android", "openbsd", "sunos", "aix", "netbsd", "openharmony"];
const CPU = { arm64: "arm64", x64: "x64", ia32: "ia32", arm: "arm", armv7: "arm", ppc64: "ppc64", s390x: "s390x", riscv64: "riscv64", loong64: "loong64" };

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  const libc = parts.includes("musl") ? "musl" : parts.includes("gnu") || parts.includes("gnueabihf") ? "glibc" : undefined;
  return os && cpu ? { os, cpu, libc } : undefined;
}

let added = 0;
for (const [where, meta] of Object.entries(pkgs)) {
  for (const [dep, range] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = where === "" ? "node_modules" : `${where}/node_modules`;
    if (pkgs[`${base}/${dep}`] || pkgs[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(range)) continue;
    pkgs[`node_modules/${dep}`] = {
      version: range,
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      license: meta.license,
      optional: true,
      os: [platform.os],
      ...(meta.engines ? { engines: meta.engines } : {}),
    };
    added++;
  }
}
writeFileSync("package-lock.json", JSON.stringify(lock, null, 2) + "\n");
console.log(`added ${added} foreign-platform lock entries`);
