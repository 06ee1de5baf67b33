import { asScriptJson, escapeHtml, lockedPage, type LockedPage } from "../pages/locked-page.js";

/** The chat platform's login widget script, unless the chat provider names another (its authorizationUrl). */
export const DEFAULT_WIDGET_SCRIPT_URL = "https://telegram.org/js/telegram-widget.js?22";

const STYLE = "body{font-family:system-ui,sans-serif;display:flex;flex-direction:column;min-height:100vh;align-items:center;justify-content:center;margin:0;gap:16px}";

/**
 * The page a client opens for its state: the login widget of the environment's bot, whose callback posts
 * the signed data under the state to POST ./auth (this same path) and then goes where that answers: the
 * app's redirect URL with the state and the one-time code (so the login reaches only this browser). The state
 * and bot name are embedded escaped (JSON in the script, entities in the markup), never as markup. Locked
 * down as every sign-in page (src/domain/pages/locked-page.ts); the widget's own script and frame come
 * from its origin, and it evaluates its data-onauth attribute, hence 'unsafe-eval' for scripts.
 */
export function renderChatAuthPage(opts: { state: string; botUsername: string; widgetScriptUrl: string }): LockedPage {
  const script = `window.onChatAuth=function(user){var s=document.getElementById("status");fetch("./auth",{method:"POST",headers:{"content-type":"application/json"},body:JSON.stringify({state:${asScriptJson(opts.state)},chatUser:{id:user.id,firstName:user.first_name,lastName:user.last_name,username:user.username,photoURL:user.photo_url,authDate:String(user.auth_date),hash:user.hash}})}).then(function(r){if(!r.ok)throw r;return r.json();}).then(function(b){s.textContent="Signed in: returning to the app.";window.location.assign(b.redirectUrl);},function(){s.textContent="Sign-in failed: open the sign-in again.";});};`;
  const widgetOrigin = new URL(opts.widgetScriptUrl).origin;
  return lockedPage({
    title: "Sign in",
    style: STYLE,
    body: `<script async src="${escapeHtml(opts.widgetScriptUrl)}" data-telegram-login="${escapeHtml(opts.botUsername)}" data-size="large" data-request-access="write" data-onauth="onChatAuth(user)"></script>
<p id="status" role="status"></p>`,
    script,
    scriptSources: [widgetOrigin, "'unsafe-eval'"],
    directives: ["frame-src https:", "img-src https: data:", "connect-src 'self'"],
  });
}
