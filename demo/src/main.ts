import { getAddress, recoverMessageAddress, stringToHex, type Hex } from "viem";
import { createSiweMessage } from "viem/siwe";
import { ApiError, SdkApi, type LoggedCall } from "./api.js";
import { BrowserDevice, type Room } from "./device.js";

/**
 * The demo page: every step a client app takes on the public SDK API, one card each. It holds the session
 * in memory only (a reload signs out of the page, not of the service).
 */

interface Credential {
  id: string;
  format: string;
  email?: string;
  address?: string;
  chain?: string;
  walletName?: string;
  walletProvider?: string;
}
interface SdkUser {
  id: string;
  scope?: string;
  verifiedCredentials?: Credential[];
}
interface VerifyResponse {
  jwt: string;
  user: SdkUser;
  expiresAt: number;
}
/** An injected EIP-1193 provider (window.ethereum). */
interface Eip1193Provider {
  isMetaMask?: boolean;
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

const PENDING_SCOPE = "requiresAdditionalAuth";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const input = (id: string) => $<HTMLInputElement>(id);

let api: SdkApi | undefined;
let device = new BrowserDevice();
let wallet: { walletId: string; address: Hex } | undefined;

function status(id: string, text: string, error = false): void {
  const el = $(id);
  el.textContent = text;
  el.classList.toggle("error", error);
}

/** Runs a button's action: the button is disabled meanwhile, and a failure is shown in the card's status line. */
function action(buttonId: string, statusId: string, run: () => Promise<void>): void {
  const button = $<HTMLButtonElement>(buttonId);
  button.addEventListener("click", async () => {
    button.disabled = true;
    status(statusId, "");
    try {
      await run();
    } catch (err) {
      const text = err instanceof ApiError ? `${err.message} (${err.status} ${err.code})` : err instanceof Error ? err.message : String(err);
      status(statusId, text, true);
    } finally {
      button.disabled = false;
    }
  });
}

function logCall(call: LoggedCall): void {
  const li = document.createElement("li");
  li.textContent = `${call.method} ${call.path} → ${call.status}`;
  if (call.status >= 400) li.className = "failed";
  $("log").prepend(li);
}

function requireApi(): SdkApi {
  if (!api) throw new Error("choose an environment first");
  return api;
}

// --- 1. environment ---------------------------------------------------------------------------------------
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function useEnvironment(id: string): Promise<void> {
  if (!UUID.test(id)) throw new Error("an environment id is a UUID (npx sigil bootstrap --json prints one)");
  const next = new SdkApi(id.toLowerCase(), logCall);
  // A cheap public call that tells whether the environment exists.
  await next.get("/nonce");
  api = next;
  signedOut();
  $("sign-in-card").hidden = false;
  status("env-status", `Using environment ${id}.`);
}

// --- 2. sign in -------------------------------------------------------------------------------------------
let verificationUUID: string | undefined;

async function sendCode(): Promise<void> {
  const email = input("email").value.trim();
  if (!email) throw new Error("enter an e-mail address");
  const r = await requireApi().post<{ verificationUUID: string }>("/emailVerifications/create", { email });
  verificationUUID = r.verificationUUID;
  input("email-code").disabled = false;
  $<HTMLButtonElement>("email-sign-in").disabled = false;
  input("email-code").focus();
  status("sign-in-status", `A code was sent to ${email}.`);
}

async function emailSignIn(): Promise<void> {
  if (!verificationUUID) throw new Error("send a code first");
  const code = input("email-code").value.trim();
  signedIn(await requireApi().post<VerifyResponse>("/emailVerifications/signin", { verificationUUID, verificationToken: code }));
  verificationUUID = undefined;
}

async function walletSignIn(): Promise<void> {
  const provider = (window as unknown as { ethereum?: Eip1193Provider }).ethereum;
  if (!provider) throw new Error("no browser wallet found (window.ethereum): install a wallet extension");
  const accounts = (await provider.request({ method: "eth_requestAccounts" })) as string[];
  if (!accounts.length) throw new Error("the wallet shared no account");
  const address = getAddress(accounts[0]!);
  const chainId = Number(await provider.request({ method: "eth_chainId" }));
  const { nonce } = await requireApi().get<{ nonce: string }>("/nonce");
  // The message names this page (its host and origin): an environment with registered origins refuses others.
  const message = createSiweMessage({
    address,
    chainId,
    domain: location.host,
    uri: location.origin,
    nonce,
    version: "1",
    statement: "Sign in to the Sigil demo.",
    issuedAt: new Date(),
  });
  const signature = (await provider.request({ method: "personal_sign", params: [stringToHex(message), address] })) as string;
  signedIn(
    await requireApi().post<VerifyResponse>("/verify", {
      messageToSign: message,
      signedMessage: signature,
      publicWalletAddress: address,
      chain: "EVM",
      walletName: provider.isMetaMask ? "metamask" : "injected",
      walletProvider: "browserExtension",
    }),
  );
}

// --- 3. session -------------------------------------------------------------------------------------------
function showUser(user: SdkUser, expiresAt?: number): void {
  $("user-id").textContent = user.id;
  $("scope").textContent = user.scope ?? "";
  if (expiresAt) $("expires").textContent = new Date(expiresAt * 1000).toLocaleString();
  const list = $("credentials");
  list.replaceChildren(
    ...(user.verifiedCredentials ?? []).map((c) => {
      const li = document.createElement("li");
      const what = c.format === "email" ? c.email : c.address ? `${c.address} (${c.chain ?? ""}${c.walletName ? `, ${c.walletName}` : ""})` : c.id;
      li.textContent = `${c.format}: ${what}`;
      return li;
    }),
  );
}

function signedIn(r: VerifyResponse): void {
  requireApi().jwt = r.jwt;
  showUser(r.user, r.expiresAt);
  $("sign-in-card").hidden = true;
  $("session-card").hidden = false;
  $("mfa-card").hidden = false;
  status("sign-in-status", "");
  status("session-status", "Signed in.");
  void refreshFactors(r.user.scope === PENDING_SCOPE);
}

function signedOut(): void {
  if (api) api.jwt = undefined;
  device = new BrowserDevice();
  wallet = undefined;
  for (const id of ["session-card", "mfa-card", "wallet-card", "wallet-info", "sign-box", "signature-info", "totp-new", "totp-done", "mfa-pass", "totp-enrol-box"]) $(id).hidden = true;
  $("sign-in-card").hidden = !api;
  for (const id of ["email-code", "totp-code", "mfa-code"]) input(id).value = "";
  for (const id of ["session-status", "mfa-status", "wallet-status"]) status(id, "");
  $<HTMLButtonElement>("wallet-create").hidden = false;
  input("email-code").disabled = true;
  $<HTMLButtonElement>("email-sign-in").disabled = true;
}

async function signOut(): Promise<void> {
  await requireApi().post("/revoke");
  signedOut();
  status("sign-in-status", "Signed out: the session is revoked on the service.");
}

// --- 4. second factor -------------------------------------------------------------------------------------
/** What the session may do next: pass its factor, enrol one, or nothing (done); the wallet once full. */
async function refreshFactors(pending: boolean): Promise<void> {
  $("mfa-pass").hidden = !pending;
  $("wallet-card").hidden = pending;
  if (pending) {
    $("totp-enrol-box").hidden = true;
    input("mfa-code").focus();
    return;
  }
  const methods = await requireApi().get<{ devices: { type: string; verified: boolean }[] }>("/users/mfa/methods");
  const hasTotp = methods.devices.some((d) => d.type === "totp" && d.verified);
  $("totp-enrol-box").hidden = hasTotp;
  $("totp-done").hidden = !hasTotp;
  $("totp-done").textContent = hasTotp ? "✓ An authenticator app is enrolled: later sign-ins ask for its code when the environment turns MFA on." : "";
}

async function enrolTotp(): Promise<void> {
  const r = await requireApi().get<{ secret: string; uri: string }>("/users/mfa/register/totp");
  $("totp-secret").textContent = r.secret;
  $("totp-uri").textContent = r.uri;
  $("totp-new").hidden = false;
  input("totp-code").focus();
}

async function confirmTotp(): Promise<void> {
  await requireApi().post("/users/mfa/register/totp", { type: "totp", code: input("totp-code").value.trim() });
  $("totp-new").hidden = true;
  status("mfa-status", "Authenticator app enrolled.");
  await refreshFactors(false);
}

async function passTotp(): Promise<void> {
  const r = await requireApi().post<VerifyResponse>("/users/mfa/auth/totp", { code: input("mfa-code").value.trim() });
  requireApi().jwt = r.jwt;
  showUser(r.user, r.expiresAt);
  input("mfa-code").value = "";
  status("mfa-status", "Second factor passed: the session has its full scope.");
  await refreshFactors(false);
}

// --- 5. threshold wallet ----------------------------------------------------------------------------------
const room = (roomId: string) => requireApi().get<Room>(`/waas/rooms/${encodeURIComponent(roomId)}`);

async function createWallet(): Promise<void> {
  const opened = await requireApi().post<{ roomId: string; walletId: string }>("/waas/create", {
    chain: "EVM",
    clientKeygenIds: await device.keygenIds(1),
    thresholdSignatureScheme: "TWO_OF_TWO",
  });
  const done = await room(opened.roomId);
  if (done.status !== "done" || !done.result?.shareSet || !done.result.address) throw new Error(`the key generation room is ${done.status}`);
  await device.receive(done.result.shareSet);
  wallet = { walletId: opened.walletId, address: getAddress(done.result.address) };
  $("wallet-id").textContent = wallet.walletId;
  $("wallet-address").textContent = wallet.address;
  $("wallet-info").hidden = false;
  $("sign-box").hidden = false;
  $<HTMLButtonElement>("wallet-create").hidden = true;
  status("wallet-status", "Wallet created: this page holds one share, the service the other.");
  // The user's credentials now list the wallet.
  showUser(await requireApi().get<SdkUser>("/users"));
}

async function sign(): Promise<void> {
  if (!wallet || !device.holds) throw new Error("create a wallet first");
  const message = input("sign-message").value;
  const opened = await requireApi().post<{ roomId: string }>(`/waas/${encodeURIComponent(wallet.walletId)}/signMessage`, { message });
  const open = await room(opened.roomId);
  const done = await requireApi().post<Room>(`/waas/rooms/${encodeURIComponent(opened.roomId)}/contribution`, {
    contribution: await device.sharesContribution(open),
  });
  const signature = done.result?.signature as Hex | undefined;
  if (!signature) throw new Error(`the signing room is ${done.status}`);
  $("signature").textContent = signature;
  const signer = await recoverMessageAddress({ message, signature });
  $("signature-check").textContent =
    signer === wallet.address ? `✓ recovers to the wallet's address ${signer}` : `✗ recovers to ${signer}, not the wallet's address`;
  $("signature-check").className = signer === wallet.address ? "ok" : "status error";
  $("signature-info").hidden = false;
}

// --- wiring -----------------------------------------------------------------------------------------------
for (const el of document.querySelectorAll(".origin")) el.textContent = location.origin;
action("env-use", "env-status", () => useEnvironment(input("env").value.trim()));
action("send-code", "sign-in-status", sendCode);
action("email-sign-in", "sign-in-status", emailSignIn);
action("wallet-sign-in", "sign-in-status", walletSignIn);
action("sign-out", "session-status", signOut);
action("totp-enrol", "mfa-status", enrolTotp);
action("totp-confirm", "mfa-status", confirmTotp);
action("mfa-verify", "mfa-status", passTotp);
action("wallet-create", "wallet-status", createWallet);
action("sign", "wallet-status", sign);

const fromUrl = new URLSearchParams(location.search).get("environmentId") ?? new URLSearchParams(location.search).get("env");
if (fromUrl) {
  input("env").value = fromUrl;
  useEnvironment(fromUrl).catch((err) => status("env-status", err instanceof Error ? err.message : String(err), true));
}
