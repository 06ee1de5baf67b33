import { createServer } from "node:net";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCloudDrive } from "../../src/adapters/cloud-drive.js";
import type { CloudDrive } from "../../src/domain/deps.js";
import { loadConfig } from "../../src/config.js";
import { CloudDrivePeer } from "./support/cloud-drive-peer.js";
import { failure } from "../support/domain-errors.js";

let peer: CloudDrivePeer;
let drive: CloudDrive;

beforeAll(async () => {
  peer = await CloudDrivePeer.start();
  drive = createCloudDrive(peer.url, { timeoutMs: 1000 });
});
afterAll(async () => {
  peer.failWith = null;
  peer.delayMs = 0;
  await peer?.stop();
});

describe("cloud drive adapter", () => {
  it("uploads a share into the user's app-data folder and downloads it back byte for byte", async () => {
    const token = peer.issueToken();
    const content = randomBytes(300);
    const { fileId } = await drive.upload(token, "sigil-wallet-1-epoch-1.share", content);
    expect(fileId).toMatch(/^[A-Za-z0-9_-]+$/);
    const stored = peer.files(token);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: fileId, name: "sigil-wallet-1-epoch-1.share", parents: ["appDataFolder"] });
    expect(stored[0]!.content.equals(content)).toBe(true);
    const upload = peer.requests.find((r) => r.method === "POST")!;
    expect(upload.url).toBe("/upload/drive/v3/files?uploadType=multipart");
    expect(upload.authorization).toBe(`Bearer ${token}`);
    expect(upload.contentType).toMatch(/^multipart\/related; boundary=/);
    const back = await drive.download(token, "sigil-wallet-1-epoch-1.share");
    expect(Buffer.from(back!).equals(content)).toBe(true);
  });

  it("downloads the newest file of a name (a backup written again), and null when there is none", async () => {
    const token = peer.issueToken();
    await drive.upload(token, "again.share", Buffer.from("first"));
    await drive.upload(token, "again.share", Buffer.from("second"));
    expect(Buffer.from((await drive.download(token, "again.share"))!).toString()).toBe("second");
    expect(await drive.download(token, "missing.share")).toBeNull();
  });

  it("keeps users apart: another token does not see the file", async () => {
    const alice = peer.issueToken();
    const bob = peer.issueToken();
    await drive.upload(alice, "mine.share", Buffer.from("alice's"));
    expect(await drive.download(bob, "mine.share")).toBeNull();
  });

  it("answers 422 backup_location_refused for a token the drive refuses, and stores nothing", async () => {
    const err = await failure(drive.upload("ya29.forged", "x.share", Buffer.from("x")));
    expect(err.kind).toBe("unprocessable");
    expect(err.code).toBe("backup_location_refused");
    expect((await failure(drive.download("ya29.forged", "x.share"))).code).toBe("backup_location_refused");
  });

  it("refuses malformed names and tokens before sending anything", async () => {
    const before = peer.requests.length;
    expect((await failure(drive.upload(peer.issueToken(), "x' or name contains '", Buffer.from("x")))).code).toBe("invalid_backup_name");
    expect((await failure(drive.download(peer.issueToken(), "")).then((e) => e.code))).toBe("invalid_backup_name");
    expect((await failure(drive.upload("bad\r\ntoken", "x.share", Buffer.from("x")))).code).toBe("invalid_access_token");
    expect(peer.requests.length).toBe(before);
  });

  it("maps a failing drive (5xx, 429) to 503 backup_location_unavailable", async () => {
    const token = peer.issueToken();
    for (const status of [500, 503, 429]) {
      peer.failWith = status;
      const err = await failure(drive.upload(token, "x.share", Buffer.from("x")));
      expect(err.kind).toBe("unavailable");
      expect(err.code).toBe("backup_location_unavailable");
      expect(err.payload).toEqual({ location: "cloud_drive", retryAfterSeconds: 5 });
    }
    peer.failWith = null;
    expect(peer.files(token)).toHaveLength(0);
  });

  it("bounds every request: a drive that does not answer in time is unavailable", async () => {
    peer.delayMs = 3000;
    const t0 = Date.now();
    const err = await failure(drive.download(peer.issueToken(), "slow.share"));
    peer.delayMs = 0;
    expect(err.code).toBe("backup_location_unavailable");
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  it("maps a closed port and a non-drive answer to unavailable", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r()));
    const closed = createCloudDrive(`http://127.0.0.1:${port}`, { timeoutMs: 1000 });
    expect((await failure(closed.upload("t", "x.share", Buffer.from("x")))).code).toBe("backup_location_unavailable");
  });

  it("refuses a download larger than the bound", async () => {
    const token = peer.issueToken();
    const small = createCloudDrive(peer.url, { timeoutMs: 1000, maxBytes: 100 });
    await small.upload(token, "big.share", randomBytes(1000));
    expect((await failure(small.download(token, "big.share"))).code).toBe("backup_location_unavailable");
  });

  it("reads its base URL from SIGIL_CLOUD_DRIVE_URL, the public API by default", () => {
    const dataDir = `/tmp/sigil-config-${randomBytes(4).toString("hex")}`;
    expect(loadConfig({ SIGIL_DATA_DIR: dataDir }).backups.cloudDriveUrl).toBe("https://www.googleapis.com");
    expect(loadConfig({ SIGIL_DATA_DIR: dataDir, SIGIL_CLOUD_DRIVE_URL: "http://127.0.0.1:9999/" }).backups.cloudDriveUrl).toBe("http://127.0.0.1:9999");
    expect(() => loadConfig({ SIGIL_DATA_DIR: dataDir, SIGIL_CLOUD_DRIVE_URL: "ftp://x" })).toThrow(/SIGIL_CLOUD_DRIVE_URL/);
    rmSync(dataDir, { recursive: true, force: true });
  });
});
