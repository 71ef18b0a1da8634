// CONTRACT §13/§14: every admin action needs a fresh "Confirm it's you" proof. adminAction()
// (src/http/pages/admin.ts) is the guard list the admin forms of later pages mount; here it guards
// a probe form on a small server beside the node, over the node's own services and store (so the
// node's session cookie and CSRF token hold there): signed out, not an admin, no CSRF token, no
// fresh proof — nothing runs; after confirming, the action runs once.
import { expect } from "chai";
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { pagesDeps } from "../src/http/routes.js";
import { pageStack } from "../src/http/pages/index.js";
import { adminAction, adminOf } from "../src/http/pages/admin.js";
import { describeBackends } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";
import { PageClient, csrfOf } from "./support/pages.js";

describeBackends("The guard of admin actions", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);
  let node: TestNode;
  let server: Server;
  let probe: string;
  let ran: string[];

  beforeEach(async () => {
    node = await backend.startNode({ ADMIN_REQUIRE_2FA: "false" });
    const s = node.server.services;
    const deps = pagesDeps(node.config, s);
    ran = [];
    const app = express();
    app.use(pageStack(deps));
    app.post("/admin/probe", ...adminAction(deps, "/admin"), (_req, res) => {
      ran.push(adminOf(res).username);
      res.status(200).send("done");
    });
    app.use((err: { code?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(err.code === "EBADCSRFTOKEN" ? 403 : 500).send(String(err.code));
    });
    server = await new Promise<Server>((resolve) => {
      const srv = app.listen(0, "127.0.0.1", () => resolve(srv));
    });
    probe = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A signed-in person on the node, and the same browser (its cookies) on the probe's server. */
  async function person(username: string, admin: boolean) {
    const c = new PageClient(node.url);
    await c.signUp(username, "correct horse battery");
    if (admin) {
      const user = await node.server.services.accounts.byUsername(username);
      await node.server.services.accounts.setAdmin(user!.id, true);
    }
    const onProbe = new PageClient(probe);
    const share = () => {
      for (const [k, v] of c.cookies) onProbe.cookies.set(k, v);
    };
    share();
    /** The CSRF token of a page of this browser (`path`), its cookies shared then. */
    const csrf = async (path = "/account") => {
      const token = csrfOf((await c.get(path)).text);
      share();
      return token;
    };
    return { c, onProbe, share, csrf };
  }

  it("When the form is sent signed out, by someone not an admin, or without the CSRF token, then nothing runs", async () => {
    const anon = await new PageClient(probe).post("/admin/probe", {});
    expect(anon.status).to.equal(403); // no CSRF token of a session: refused first
    const bob = await person("bob", false);
    await bob.c.confirm();
    bob.share();
    const refused = await bob.onProbe.post("/admin/probe", { _csrf: await bob.csrf() });
    expect(refused.status).to.equal(403);
    expect(refused.text).to.contain("For administrators only");
    const ada = await person("ada", true);
    await ada.c.confirm();
    ada.share();
    expect((await ada.onProbe.post("/admin/probe", {})).status).to.equal(403);
    expect((await ada.onProbe.post("/admin/probe", { _csrf: "forged" })).status).to.equal(403);
    expect(ran).to.deep.equal([]);
  });

  it("When the form is sent by a browser that signed out (a valid anonymous CSRF token), then it goes to sign in and back to /admin, and nothing runs", async () => {
    const ada = await person("ada", true);
    expect((await ada.c.post("/signout", { _csrf: await ada.csrf() })).status).to.equal(303);
    const r = await ada.onProbe.post("/admin/probe", { _csrf: await ada.csrf("/signin") });
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal("/signin?return_to=%2Fadmin");
    expect(ran).to.deep.equal([]);
  });

  it("When an admin sends it without a fresh proof, then they go to confirm it's you and back; once confirmed, it runs once", async () => {
    const ada = await person("ada", true);
    const r = await ada.onProbe.post("/admin/probe", { _csrf: await ada.csrf() });
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal("/confirm?return_to=%2Fadmin");
    expect(ran).to.deep.equal([]);
    await ada.c.confirm("correct horse battery", "/admin");
    ada.share();
    const done = await ada.onProbe.post("/admin/probe", { _csrf: await ada.csrf() });
    expect(done.status).to.equal(200);
    expect(ran).to.deep.equal(["ada"]);
  });
});
