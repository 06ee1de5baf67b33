/**
 * A tiny browser for OAuth flows in tests: follows redirects one by one (redirect: "manual"), keeps cookies
 * per host (name=value only; enough for a loopback provider's session cookies), and submits HTML forms the
 * way a person pressing the button would (hidden inputs plus the fields given).
 */
export interface Page {
  url: string;
  status: number;
  headers: Headers;
  body: string;
}

export class Browser {
  private jar = new Map<string, Map<string, string>>();
  /** Every URL the browser was sent to, in order (to inspect the callback and the app's URL). */
  readonly visited: string[] = [];

  /** `hosts` maps a host as URLs name it to where it really listens (the service's public URL in tests). */
  constructor(private readonly hosts: Record<string, string> = {}) {}

  /** Opens the URL and follows redirects until a page answers (or `stopAt` matches the next URL). */
  async open(url: string, init: { method?: string; form?: Record<string, string>; stopAt?: (u: URL) => boolean } = {}): Promise<Page> {
    let method = init.method ?? "GET";
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    let current = url;
    for (let hops = 0; hops < 20; hops++) {
      this.visited.push(current);
      const u = new URL(current);
      const headers: Record<string, string> = { accept: "text/html" };
      const cookies = this.jar.get(u.host);
      if (cookies?.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
      const real = new URL(current);
      if (this.hosts[real.host]) real.host = this.hosts[real.host]!;
      const res = await fetch(real, { method, headers, body, redirect: "manual" });
      this.keepCookies(u.host, res.headers);
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, current);
        if (init.stopAt?.(next)) return { url: next.href, status: res.status, headers: res.headers, body: await res.text() };
        current = next.href;
        // 307/308 keep the method and body; 301/302/303 become a GET.
        if (res.status !== 307 && res.status !== 308) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      return { url: current, status: res.status, headers: res.headers, body: await res.text() };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** Submits the page's first form (or the one whose action matches) with its hidden inputs and `fields`. */
  async submit(page: Page, fields: Record<string, string> = {}, opts: { stopAt?: (u: URL) => boolean } = {}): Promise<Page> {
    const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(page.body);
    if (!form) throw new Error(`no form on ${page.url}: ${page.body.slice(0, 300)}`);
    const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`, "i").exec(tag)?.[1];
    const action = decode(attr(form[1]!, "action") ?? page.url);
    const method = (attr(form[1]!, "method") ?? "get").toUpperCase();
    const values: Record<string, string> = {};
    for (const input of form[2]!.matchAll(/<input\b[^>]*>/gi)) {
      const name = attr(input[0], "name");
      if (name && /type="hidden"/i.test(input[0])) values[decode(name)] = decode(attr(input[0], "value") ?? "");
    }
    Object.assign(values, fields);
    const target = new URL(action, page.url);
    if (method === "GET") {
      for (const [k, v] of Object.entries(values)) target.searchParams.set(k, v);
      return this.open(target.href, opts);
    }
    return this.open(target.href, { method, form: values, stopAt: opts.stopAt });
  }

  private keepCookies(host: string, headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      if (eq < 0) continue;
      const jar = this.jar.get(host) ?? new Map<string, string>();
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
      this.jar.set(host, jar);
    }
  }
}

const decode = (s: string) => s.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">");

/**
 * A person's part of a provider login in the test browser: opens the authorization URL, fills the
 * provider's login form with `login` and approves its consent page, until the provider sends the browser
 * to Sigil's callback. A query-mode callback is stopped at (the page's url is the callback URL, status
 * 303/302); for a form_post callback the provider's auto-submitting form is returned, not yet submitted.
 */
export async function approveAtProvider(browser: Browser, authorizationUrl: string, login: string, publicHost: string): Promise<Page> {
  const stopAt = (u: URL) => u.host === publicHost;
  let page = await browser.open(authorizationUrl, { stopAt });
  const formTarget = (p: typeof page) => /<form\b[^>]*action="([^"]*)"/i.exec(p.body)?.[1]?.replace(/&amp;/g, "&");
  const toSigil = (p: typeof page) => new URL(formTarget(p) ?? p.url, p.url).host === publicHost;
  for (let i = 0; i < 5 && page.status === 200 && formTarget(page) !== undefined && !toSigil(page); i++)
    page = await browser.submit(page, /name="login"/.test(page.body) ? { login, password: "any" } : {}, { stopAt });
  return page;
}
