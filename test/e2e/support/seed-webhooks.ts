import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import type { TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { waitFor } from "../../support/poll.js";

/**
 * One webhook of the tenant's sandbox environment (created over REST, so with its ping message), that
 * message, and one event of the environment (the webhook's own webhook.created), keyed by the proto name of
 * the path variable (for seedTenant in seed-tenant.ts).
 *
 * The endpoint is a loopback receiver that answers 204, kept until the ping is delivered: a settled message
 * is not touched again by the delivery engine, so the seeded tenant's rows stay still while a test compares
 * them. It subscribes to an event no management call of another tenant can cause.
 */
export async function seedWebhooks(app: TestApp, t: BootstrapResult): Promise<Record<string, string>> {
  const env = t.environmentId;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = receiver.address() as AddressInfo;
    const created = await call(app.baseUrl, "POST", `/environments/${env}/webhooks`, {
      token: t.token,
      body: { url: `http://127.0.0.1:${port}/seed-webhook`, events: ["wallet.exported"], description: "seed" },
    });
    if (created.status !== 201) throw new Error(`seeding a webhook: ${created.status} ${created.text}`);
    const webhookId: string = created.body.webhookId;
    const messagesPath = `/environments/${env}/webhooks/${webhookId}/messages`;
    const pingNow = async () => {
      const messages = await call(app.baseUrl, "GET", messagesPath, { token: t.token });
      if (messages.status !== 200) throw new Error(`seeding a webhook message: ${messages.status} ${messages.text}`);
      return messages.body.data.find((m: { eventName: string }) => m.eventName === "ping") as { messageId: string; status: string } | undefined;
    };
    const ping = await waitFor("the seeded webhook's ping delivered", pingNow, { until: (p) => p?.status === "delivered", timeoutMs: 30_000 });
    const events = await call(app.baseUrl, "GET", `/environments/${env}/events?eventName=webhook.created&limit=1`, { token: t.token });
    if (events.status !== 200 || !events.body.data[0]) throw new Error(`seeding an event: ${events.status} ${events.text}`);
    return { webhook_id: webhookId, message_id: ping!.messageId, event_id: events.body.data[0].eventId };
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
}
